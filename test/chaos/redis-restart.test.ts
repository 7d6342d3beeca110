/**
 * Chaos: the Redis under a running queued run goes away twice, once stopped cleanly (SIGTERM) and once crashed
 * (SIGKILL), and comes back on the same data directory. A private redis-server (AOF, fsync always) on a free port;
 * the worker is a separate OS process. The run resumes from its checkpoint and HubSpot ends exactly as expected.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { enqueueRun, openQueues } from '../../src/queue/index.js';
import type { RunCheckpoint } from '../../src/runs/checkpoint-store.js';
import { listRuns } from '../../src/runs/run-history.js';
import { createRedis } from '../../src/shared/redis.js';
import { closeAfterEach } from '../helpers/closers.js';
import { diffCrmState, expectedRows, hubspotRows, NO_DIFF } from '../helpers/crm-state.js';
import { waitFor, workerPool } from '../helpers/worker-process.js';
import { COMPANY_FILTER, COMPANY_SEARCH, hubspotConfig, startFixture } from '../jobs/sync-fixture.js';
import { privateRedis } from '../queue/private-redis.js';

const FIELDS = { name: 'name', domain: 'domain', numberofemployees: 'headcount' };

describe('chaos: Redis stopped and crashed mid-run', () => {
  const closers = closeAfterEach();

  it('the queued run resumes after each Redis restart and completes with the exact CRM state', async () => {
    const fx = await startFixture('chaos-redis', {
      salesIntel: { companies: 1_500, persons: 10, faults: { latency: { fixedMs: 100, jitterMs: 0 } } },
    });
    closers.push(() => fx.close());
    const expected = expectedRows(await fx.oracleRecords('companies', COMPANY_FILTER), 'id', FIELDS);
    const redis = await privateRedis('chaos-redis-pw');
    closers.push(() => redis.destroy());
    await redis.start();
    const dir = await mkdtemp(join(tmpdir(), 'ps-chaos-redis-'));
    closers.push(() => rm(dir, { recursive: true, force: true }));
    const configFile = join(dir, 'config.yaml');
    await writeFile(configFile, hubspotConfig(COMPANY_SEARCH, '  pageSize: 20\n  parallelism: 2'));
    const prefix = 'ps-chaos-redis';
    const conn = createRedis(redis.url);
    conn.on('error', () => undefined);
    closers.push(async () => conn.disconnect());
    const queues = openQueues({ connection: conn, prefix });
    closers.push(() => queues.close().catch(() => undefined));
    const pool = workerPool(configFile, prefix, { ...fx.env, REDIS_URL: redis.url });
    closers.push(() => pool.killAll());
    await pool.spawn();

    const { jobId } = await enqueueRun(queues.sync, 'all-companies', 'manual');
    const fetched = async (): Promise<number> => {
      const raw = await conn.get(`${prefix}:run:all-companies:checkpoint`);
      return raw ? (JSON.parse(raw) as RunCheckpoint).counts.fetched : 0;
    };
    let last = 0;
    for (const how of ['SIGTERM', 'SIGKILL'] as const) {
      last = await waitFor(
        async () => {
          const n = await fetched();
          return n > last ? n : undefined;
        },
        60_000,
        `progress before the ${how}`,
      );
      expect(last).toBeLessThan(expected.size);
      if (how === 'SIGKILL') process.kill(redis.pid!, 'SIGKILL');
      await redis.stop(); // SIGTERM, or (after SIGKILL) only waits for the exit
      // down long enough for every lock and lease (BullMQ 2 s, run lock 3 s) to lapse
      await new Promise((r) => setTimeout(r, 4_000));
      await redis.start();
      // the queued run came back with Redis: its job and its checkpoint (fsync always: the crash lost nothing
      // acknowledged)
      expect(await queues.sync.getJobState(jobId)).not.toBe('unknown');
      expect(await fetched()).toBeGreaterThanOrEqual(last);
    }

    const state = await waitFor(
      async () => {
        const s = await queues.sync.getJobState(jobId);
        return s === 'completed' || s === 'failed' ? s : undefined;
      },
      120_000,
      'the job ends',
    );
    expect(state).toBe('completed');
    const run = (await listRuns(conn, 'all-companies', { prefix })).find(
      (r) => r.runId === jobId && r.status === 'completed',
    );
    expect(run?.counted).toBe(expected.size);
    expect(
      diffCrmState(hubspotRows(fx.hubspot!, 'companies', 'prospect_sync_id', Object.keys(FIELDS)), expected),
    ).toEqual(NO_DIFF);
  }, 240_000);
});
