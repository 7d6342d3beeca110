import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startRoles } from '../../src/cli/commands/start.js';
import { loadConfig } from '../../src/config/index.js';
import { recordRun } from '../../src/runs/run-history.js';
import type { RunSummary } from '../../src/runs/run-summary.js';
import { silentLogger } from '../../src/shared/logger.js';
import { CONFIG_ENV, configYaml, searchYaml } from './cli-config.js';
import { queueEnv, waitFor } from './queue-env.js';
import { closeAfterEach } from '../helpers/closers.js';

describe('start: scheduler + worker + dashboard in one process', () => {
  const closers = closeAfterEach();

  it(
    'a scheduled search runs through the injected processor, shows in /runs, and close() stops ' + 'everything',
    async () => {
      const env = await queueEnv('start-roles');
      closers.push(env.cleanup);
      const dir = await mkdtemp(join(tmpdir(), 'ps-start-'));
      closers.push(() => rm(dir, { recursive: true, force: true }));
      const configPath = join(dir, 'c.yaml');
      await writeFile(configPath, configYaml(searchYaml('fast', '{every: 250}')));
      const config = await loadConfig({ path: configPath, env: { ...process.env, ...CONFIG_ENV } });

      const processed: string[] = [];
      const running = await startRoles({
        roles: { scheduler: true, worker: true, dashboard: true },
        config,
        configPath,
        logger: silentLogger,
        prefix: env.ctx.prefix,
        processor: async (job) => {
          processed.push(job.data.runId);
          const summary = {
            search: job.data.search,
            status: 'completed',
            runId: job.data.runId,
          } as unknown as RunSummary;
          await recordRun(env.ctx.connection, summary, { prefix: env.ctx.prefix });
          return summary;
        },
      });
      let closed = false;
      closers.push(async () => {
        if (!closed) await running.close(2_000);
      });
      expect(running.scheduler?.isLeader).toBe(true);
      await waitFor(() => processed.length >= 2 || undefined, 15_000);

      const url = running.dashboard?.url;
      const runs = (await (await fetch(`${url}/runs/fast?limit=5`)).json()) as { runs: { runId: string }[] };
      expect(runs.runs.length).toBeGreaterThanOrEqual(2);
      expect(processed).toContain(runs.runs[0]?.runId);
      expect((await fetch(`${url}/runs/other`)).status).toBe(404);

      await running.close(2_000);
      closed = true;
      await expect(fetch(`${url}/healthz`)).rejects.toThrow();
      await waitFor(() => running.connection.status === 'end', 2_000);
    },
  );
});
