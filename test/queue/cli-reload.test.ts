/**
 * SIGHUP under a real `start` process (child process, own queue prefix, the emulators): a search added to the file
 * runs to completion in the same process (workers and dashboard use the new config, not only the scheduler); an
 * invalid file is refused with its file:line problem logged and the previous config keeps running.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { enqueueRun, openQueues } from '../../src/queue/index.js';
import { listRuns } from '../../src/runs/run-history.js';
import type { RunSummary } from '../../src/runs/run-summary.js';
import { closeAfterEach } from '../helpers/closers.js';
import { COMPANY_SEARCH, hubspotConfig, startFixture } from '../jobs/sync-fixture.js';
import { cli } from './cli-process.js';
import { waitFor } from './queue-env.js';

const FRESH_SEARCH = `
  - name: fresh
    segment: icp
    entity: companies
    filter: {company: {headcount: {gte: 1, lte: 60}}}
    destination: crm
    object: companies
    matchOn: {field: prospect_sync_id, from: id}
    fields: {name: name}
`;

describe('start: SIGHUP reloads the config of the whole process', () => {
  const closers = closeAfterEach();

  it(
    'a new search runs to completion after SIGHUP; an invalid file is refused and the old config keeps ' + 'running',
    async () => {
      const fx = await startFixture('cli-reload');
      const dir = await mkdtemp(join(tmpdir(), 'ps-reload-'));
      const queues = openQueues({ connection: fx.redis, prefix: fx.prefix });
      closers.push(fx.close, () => rm(dir, { recursive: true, force: true }), queues.close);
      const file = join(dir, 'prospect-sync.yaml');
      await writeFile(file, hubspotConfig(COMPANY_SEARCH));
      const env = { ...fx.env, QUEUE_PREFIX: fx.prefix, PROSPECT_SYNC_CONFIG: file, LOG_LEVEL: 'info' };

      const start = cli(['start', '--port', '0'], env);
      closers.push(async () => {
        if (start.child.exitCode === null && start.child.signalCode === null) {
          start.child.kill('SIGTERM');
          await start.exited;
        }
      });
      const url = await waitFor(() => /dashboard: (\S+)/.exec(start.out())?.[1], 30_000);
      await waitFor(() => start.out().includes('"msg":"started"'), 30_000);
      expect((await fetch(`${url}/runs/fresh`)).status).toBe(404);

      const finished = async (search: string, count: number): Promise<RunSummary[]> =>
        waitFor(async () => {
          const runs = await listRuns(fx.redis, search, { prefix: fx.prefix });
          return runs.length >= count ? runs : undefined;
        }, 60_000);

      // 1. A new search: reload, trigger (the CLI reads the same file), the worker of `start` runs it.
      await writeFile(file, hubspotConfig(COMPANY_SEARCH + FRESH_SEARCH));
      start.child.kill('SIGHUP');
      await waitFor(() => start.out().includes('"msg":"config reloaded"'), 20_000);
      const trigger = cli(['trigger', 'fresh', '--json'], env);
      expect(await trigger.exited, trigger.err()).toBe(0);
      const [first] = await finished('fresh', 1);
      expect(first, JSON.stringify(first?.error)).toMatchObject({ search: 'fresh', status: 'completed' });
      expect(first!.created).toBeGreaterThan(0);
      const served = (await (await fetch(`${url}/runs/fresh`)).json()) as { runs: RunSummary[] };
      expect(served.runs.map((r) => r.runId)).toEqual([first!.runId]);

      // 2. An invalid file: refused with file:line, the process keeps running the previous config.
      await writeFile(
        file,
        hubspotConfig(
          COMPANY_SEARCH + FRESH_SEARCH.replace('{name: name}', '{name: name}\n    schedule: {every: soon}'),
        ),
      );
      start.child.kill('SIGHUP');
      const refused = await waitFor(
        () =>
          start
            .out()
            .split('\n')
            .find((l) => l.includes('config reload failed')),
        20_000,
      );
      expect(refused).toMatch(
        new RegExp(`${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:\\d+:\\d+ searches\\[1\\]\\.schedule`),
      );
      expect(start.child.exitCode).toBeNull();
      await enqueueRun(queues.sync, 'fresh', 'manual');
      const [second] = await finished('fresh', 2);
      expect(second).toMatchObject({ search: 'fresh', status: 'completed' });
      expect((await fetch(`${url}/runs/fresh`)).status).toBe(200);

      start.child.kill('SIGTERM');
      expect(await start.exited).toBe(0);
    },
    120_000,
  );
});
