import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

const href = (m: string): string => JSON.stringify(pathToFileURL(join(root, m)).href);

/**
 * The packages a fresh process loads when it imports these modules of ours (module load hook, no mocks), then runs
 * `then` (module code: may await).
 */
async function packagesLoadedBy(modules: string[], then = ''): Promise<string[]> {
  const imports = modules.map((m) => `await import(${href(m)});`).join('\n');
  const code =
    `
import { registerHooks } from 'node:module';
const loaded = new Set();
registerHooks({ load(url, ctx, next) { const m = /node_modules\\/((?:@[^/]+\\/)?[^/]+)/.exec(url); if (m) ` +
    `loaded.add(m[1]); return next(url, ctx); } });
${imports}
${then}
console.log(JSON.stringify([...loaded]));
process.exit(0);
`;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', '--input-type=module', '--eval', code],
    { cwd: root },
  );
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as string[];
}

describe('what a run loads', () => {
  // Each of these is tens of MB of RSS and 0.1-0.3 s of CPU per process start that a HubSpot run does not use.
  it('`run` and the sync job load neither jsforce nor BullMQ nor the dashboard and metrics packages', async () => {
    // A HubSpot destination opens through its port (src/crm/destinations.ts), as a run opens it: its client loads then.
    const openHubSpot =
      `
const { openSink } = await import(${href('src/crm/destinations.ts')});
const { Redis } = await import('ioredis');
const redis = new Redis({ lazyConnect: true });
const sink = await openSink({ type: 'hubspot', accessToken: 'token', baseUrl: 'http://127.0.0.1:9', requestsPer10s: ` +
      `100 }, { redis, keyPrefix: 'modules', logger: (await import(${href('src/shared/logger.ts')})).silentLogger });
await sink.close();
redis.disconnect();`;
    const loaded = await packagesLoadedBy(['src/cli/commands/run.ts', 'jobs/sync-search/index.ts'], openHubSpot);
    expect(loaded).toContain('@hubspot/api-client'); // the probe sees packages at all
    for (const pkg of ['jsforce', 'bullmq', 'express', '@bull-board/api', '@bull-board/express', 'prom-client'])
      expect(loaded).not.toContain(pkg);
  }, 60_000);

  it('the `worker`/`start` command loads the dashboard and metrics packages only when it serves them', async () => {
    const loaded = await packagesLoadedBy(['src/cli/commands/start.ts']);
    expect(loaded).toContain('bullmq');
    for (const pkg of ['express', '@bull-board/api', '@bull-board/express', 'prom-client', 'jsforce'])
      expect(loaded).not.toContain(pkg);
  }, 60_000);
});
