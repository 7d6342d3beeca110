/**
 * Chaos: the Redis under a running queued run goes away twice, once stopped cleanly (SIGTERM) and once crashed
 * (SIGKILL), and comes back on the same data directory. A private redis-server (AOF, fsync always) on a free port;
 * the worker is a separate OS process. The run resumes from its checkpoint and HubSpot ends exactly as expected.
 */
import { describe, expect, it } from 'vitest';
import { enqueueRun } from '../../src/queue/index.js';
import { listRuns } from '../../src/runs/run-history.js';
import { closeAfterEach } from '../helpers/closers.js';
import { diffCrmState, expectedRows, hubspotRows, NO_DIFF } from '../helpers/crm-state.js';
import { ownRedisWorker } from '../helpers/own-redis-worker.js';
import { jobEnded, waitFor } from '../helpers/worker-process.js';
import { COMPANY_FILTER, startFixture } from '../jobs/sync-fixture.js';

const FIELDS = { name: 'name', domain: 'domain', numberofemployees: 'headcount' };

describe('chaos: Redis stopped and crashed mid-run', () => {
  const closers = closeAfterEach();

  it('the queued run resumes after each Redis restart and completes with the exact CRM state', async () => {
    const fx = await startFixture('chaos-redis', {
      salesIntel: { companies: 1_500, persons: 10, faults: { latency: { fixedMs: 100, jitterMs: 0 } } },
    });
    closers.push(() => fx.close());
    const expected = expectedRows(await fx.oracleRecords('companies', COMPANY_FILTER), 'id', FIELDS);
    const { redis, conn, queues, pool, prefix, fetched } = await ownRedisWorker(fx, closers, 'chaos-redis');
    await pool.spawn();

    const { jobId } = await enqueueRun(queues.sync, 'all-companies', 'manual');
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

    expect(await jobEnded(queues.sync, jobId, 120_000)).toBe('completed');
    const run = (await listRuns(conn, 'all-companies', { prefix })).find(
      (r) => r.runId === jobId && r.status === 'completed',
    );
    expect(run?.counted).toBe(expected.size);
    expect(
      diffCrmState(hubspotRows(fx.hubspot!, 'companies', 'prospect_sync_id', Object.keys(FIELDS)), expected),
    ).toEqual(NO_DIFF);
  }, 240_000);
});
