/**
 * Crash recovery with the production lock settings (src/queue/worker-locks.ts), worker OS processes as deployed:
 * a SIGKILLed worker's run moves again within 20 s (BullMQ's defaults took 60-70 s), and a worker whose event loop
 * is blocked by CPU for 5 s keeps its run: no stall, no second attempt, while another worker stands by to take it.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { enqueueRun, openQueues } from '../../src/queue/index.js';
import type { RunCheckpoint } from '../../src/runs/checkpoint-store.js';
import { createRedis } from '../../src/shared/redis.js';
import { closeAfterEach } from '../helpers/closers.js';
import { NO_DIFF } from '../helpers/crm-state.js';
import { waitFor, workerPool } from '../helpers/worker-process.js';
import { COMPANY_SEARCH, hubspotConfig, startFixture } from '../jobs/sync-fixture.js';
import { runKillScenario } from './kill-scenario.js';

const PRODUCTION = { WORKER_LOCKS: 'production' };

describe('chaos: crash recovery with the production lock settings', () => {
  const closers = closeAfterEach();

  it("a SIGKILLed worker's run resumes within 20 s", async () => {
    const r = await runKillScenario({ companies: 2_500, kills: 1, seed: 7, workerEnv: PRODUCTION });
    console.log(`[crash recovery] kill at fetched=${r.fetchedAtKill.join(',')}; recovery ms ${r.recoveryMs.join(',')}`);
    expect(r.kills).toBe(1);
    expect(r.recoveryMs).toHaveLength(1);
    expect(r.recoveryMs[0]).toBeLessThan(20_000);
    expect(r.state).toBe('completed');
    expect(r.diff).toEqual(NO_DIFF);
  }, 240_000);

  it('a worker blocked by CPU for 5 s keeps its run: no stall, one attempt', async () => {
    const fx = await startFixture('chaos-busy', { salesIntel: { companies: 2_500, persons: 10 } });
    closers.push(() => fx.close());
    fx.si.faults.set({ latency: { fixedMs: 100, jitterMs: 0 } });
    const dir = await mkdtemp(join(tmpdir(), 'ps-chaos-busy-'));
    closers.push(() => rm(dir, { recursive: true, force: true }));
    const configFile = join(dir, 'config.yaml');
    await writeFile(configFile, hubspotConfig(COMPANY_SEARCH, '  pageSize: 20\n  parallelism: 2'));
    const connection = createRedis(process.env.REDIS_URL);
    closers.push(async () => connection.disconnect());
    const queues = openQueues({ connection, prefix: fx.prefix });
    closers.push(() => queues.close());
    const pool = workerPool(configFile, fx.prefix, { ...fx.env, ...PRODUCTION, BUSY_ON_SIGUSR2: '5000' });
    closers.push(() => pool.killAll());
    const fetched = async (): Promise<number> => {
      const raw = await fx.redis.get(`${fx.prefix}:run:all-companies:checkpoint`);
      return raw ? (JSON.parse(raw) as RunCheckpoint).counts.fetched : 0;
    };

    // The first worker takes the run; the second one, idle, checks for stalled jobs and would take it over.
    const busy = await pool.spawn();
    const { jobId } = await enqueueRun(queues.sync, 'all-companies', 'manual');
    await waitFor(async () => ((await fetched()) >= 40 ? true : undefined), 60_000, 'the run under way');
    await pool.spawn();
    const said = output(busy);
    busy.kill('SIGUSR2');
    await waitFor(async () => (said().includes('idle') ? true : undefined), 30_000, 'the 5 s block ends');
    expect(said()).toContain('busy');
    expect(await queues.sync.getJobState(jobId)).toBe('active'); // the block fell mid-run

    const state = await waitFor(
      async () => {
        const s = await queues.sync.getJobState(jobId);
        return s === 'completed' || s === 'failed' ? s : undefined;
      },
      120_000,
      'the run ends',
    );
    const job = await queues.sync.getJob(jobId);
    expect(state).toBe('completed');
    expect(job?.stalledCounter).toBe(0);
    expect(job?.attemptsStarted).toBe(1);
  }, 240_000);
});

/** Everything `proc` prints on stdout from now on. */
function output(proc: ChildProcess): () => string {
  let text = '';
  proc.stdout?.on('data', (d: Buffer) => (text += d.toString()));
  return () => text;
}
