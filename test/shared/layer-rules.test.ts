import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const repo = join(import.meta.dirname, '..', '..');
const depcruise = join(repo, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruiser.mjs');
const config = join(repo, '.dependency-cruiser.cjs');
// dependency-cruiser needs Node >= 22.13: the repo's pinned Node, whichever Node runs the tests.
const pinnedNode = join(repo, 'node_modules', '.bin', 'node');
const node = existsSync(pinnedNode) ? pinnedNode : process.execPath;

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
}

/** Lays out `files` (path -> imports) in a scratch repo and returns what the project's layer rules say about it. */
async function violationsOf(files: Record<string, string[]>, root: string): Promise<Violation[]> {
  writeFileSync(
    join(root, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext' } }),
  );
  for (const [path, imports] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    const lines = imports.map((spec, i) => `import * as m${i} from '${spec}';\nexport const k${i} = m${i};`);
    writeFileSync(join(root, path), `${lines.join('\n')}\nexport const here = 1;\n`);
  }
  // depcruise exits non-zero on violations: the JSON on stdout is the answer either way.
  const out = await run(node, [depcruise, '--config', config, '--output-type', 'json', 'src', 'jobs', 'bin'], {
    cwd: root,
  }).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }));
  const report = JSON.parse(out.stdout) as { summary: { violations: Violation[] } };
  return report.summary.violations;
}

describe('layer check (.dependency-cruiser.cjs, run by npm run check)', () => {
  const root = mkdtempSync(join(tmpdir(), 'layers-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('names every sideways or upward import and accepts the downward ones', async () => {
    const violations = await violationsOf(
      {
        'src/shared/logger.ts': ['../config/schema.js'],
        'src/config/schema.ts': [
          '../shared/logger.js',
          '../crm/destinations.js',
          '../crm/destination-port.js',
          '../crm/transforms.js',
          '../crm/field-mapping.js',
        ],
        'src/crm/destinations.ts': [],
        'src/crm/destination-port.ts': [],
        'src/crm/transforms.ts': [],
        'src/crm/field-mapping.ts': ['../source/types.js', '../queue/job-data.js', 'bullmq'],
        'src/source/types.ts': ['../crm/destinations.js', '../runs/run-lock.js', '../shared/logger.js'],
        'src/queue/job-data.ts': ['../../jobs/sync-search.js'],
        'src/runs/run-lock.ts': ['../queue/job-data.js'],
        'src/server/index.ts': ['../../jobs/sync-search.js', '../queue/job-data.js'],
        'src/emulators/hubspot/store.ts': ['../../source/types.js', '../../shared/logger.js', '../sales-intel/hash.js'],
        'src/emulators/sales-intel/hash.ts': [],
        'jobs/sync-search.ts': ['../src/cli/exit-codes.js', '../src/crm/field-mapping.js', '../src/source/types.js'],
        'src/cli/exit-codes.ts': [],
        'src/cli/main.ts': ['./exit-codes.js', '../../jobs/sync-search.js'],
        'bin/prospect-sync.js': ['../src/cli/main.js'],
      },
      root,
    );
    const seen = violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`).sort();
    expect(seen).toEqual([
      'config-imports-shared-and-crm-facts: src/config/schema.ts -> src/crm/field-mapping.ts',
      'crm-knows-no-bullmq: src/crm/field-mapping.ts -> bullmq',
      'crm-stays-below-source-and-queue: src/crm/field-mapping.ts -> src/queue/job-data.ts',
      'crm-stays-below-source-and-queue: src/crm/field-mapping.ts -> src/source/types.ts',
      'emulators-import-only-shared: src/emulators/hubspot/store.ts -> src/source/types.ts',
      'only-bin-imports-cli: jobs/sync-search.ts -> src/cli/exit-codes.ts',
      'queue-and-runs-import-no-jobs-or-cli: src/queue/job-data.ts -> jobs/sync-search.ts',
      'server-imports-no-jobs: src/server/index.ts -> jobs/sync-search.ts',
      'shared-imports-nothing-of-ours: src/shared/logger.ts -> src/config/schema.ts',
      'source-stays-below-crm-and-queue: src/source/types.ts -> src/crm/destinations.ts',
      'source-stays-below-crm-and-queue: src/source/types.ts -> src/runs/run-lock.ts',
    ]);
  });
});
