/** The rule that splits `npm run test:quick` from `npm test`: files that start processes or browsers stay out. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { processTestFiles } from './process-tests.js';

const root = mkdtempSync(join(tmpdir(), 'ps-process-tests-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function write(path: string, text: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}

describe('which test files start processes or browsers', () => {
  it('follows static imports of our files, not packages, type-only imports or dynamic imports', () => {
    write('src/spawner.ts', "import { spawn } from 'node:child_process';\nexport const run = spawn;\n");
    write('src/lazy.ts', "export const load = () => import('./spawner.js');\n");
    write('test/helpers/child.ts', "export {\n  run,\n} from '../../src/spawner.js';\n");
    write('test/helpers/types.ts', "import type { run } from '../../src/spawner.js';\nexport type R = typeof run;\n");
    write('test/a/direct.test.ts', "import { execFile } from 'child_process';\n");
    write('test/a/through-helper.test.ts', "import { run } from '../helpers/child.js';\n");
    write('test/a/browser.test.ts', "import { chromium } from 'playwright-core';\n");
    write('test/b/types-only.test.ts', "import type { R } from '../helpers/types.js';\nimport { it } from 'vitest';\n");
    write('test/b/dynamic.test.ts', "import { load } from '../../src/lazy.js';\n");
    write('test/b/plain.test.ts', "import { readFileSync } from 'node:fs';\n");
    write('test/b/cycle.test.ts', "import './cycle-a.js';\n");
    write('test/b/cycle-a.ts', "import './cycle-b.js';\n");
    write('test/b/cycle-b.ts', "import './cycle-a.js';\nimport 'node:child_process';\n");
    write('test/b/windows.test.ts', "import { it } from 'vitest';\n// @slow: real 10 s rate windows\n");
    write('test/b/mentions.test.ts', '// a comment about @slow: tests is no mark\n');

    expect(processTestFiles(root)).toEqual([
      'test/a/browser.test.ts',
      'test/a/direct.test.ts',
      'test/a/through-helper.test.ts',
      'test/b/cycle.test.ts',
      'test/b/windows.test.ts',
    ]);
  });

  it(
    'puts the suite-Redis test (it starts redis-server and vitest) on the process side, redact on the quick ' + 'one',
    () => {
      const repo = fileURLToPath(new URL('..', import.meta.url));
      const files = processTestFiles(repo);
      expect(files).toContain('test/suite-redis.test.ts');
      expect(files).toContain('test/e2e/cockpit-browser.test.ts');
      expect(files).not.toContain('test/shared/redact.test.ts');
      expect(files).toContain('test/crm/hubspot/hubspot-learned-limit.test.ts');
    },
  );
});
