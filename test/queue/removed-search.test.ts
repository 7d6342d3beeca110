/**
 * Upgrades and config changes: jobs that name a search the running config no longer has (removed, or renamed —
 * a rename is a removal plus a new search). A queued run fails at once (UnrecoverableError, no retries, no API
 * call), is recorded in that search's history with code search_not_found, and does not block later runs; a
 * scheduler tick for it is ignored.
 */
import { Queue } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { createSyncProcessor } from '../../jobs/sync-search.js';
import {
  enqueueRun,
  openQueues,
  startScheduler,
  startSyncWorker,
  SYNC_JOB_OPTIONS,
  TICK_QUEUE,
  type TickJobData,
} from '../../src/queue/index.js';
import { listRuns } from '../../src/runs/run-history.js';
import { silentLogger } from '../../src/shared/logger.js';
import { createRedis } from '../../src/shared/redis.js';
import { closeAfterEach } from '../helpers/closers.js';
import { COMPANY_SEARCH, hubspotConfig, startFixture } from '../jobs/sync-fixture.js';
import { waitFor } from './queue-env.js';

describe('jobs of a search the config no longer has', () => {
  const closers = closeAfterEach();

  /** Emulators + Redis under the fixture's prefix + the app's queues, all closed after the test. */
  async function fixtureWithQueues(label: string, options?: Parameters<typeof startFixture>[1]) {
    const fx = await startFixture(label, options);
    closers.push(() => fx.close());
    const connection = createRedis(process.env.REDIS_URL);
    closers.push(async () => connection.disconnect());
    const ctx = { connection, prefix: fx.prefix };
    const queues = openQueues(ctx);
    closers.push(() => queues.close());
    return { fx, connection, ctx, queues };
  }

  it(
    'a queued run of a renamed search fails at once with search_not_found, recorded, and the search can be queued ' +
      'again',
    async () => {
      const { fx, connection, ctx, queues } = await fixtureWithQueues('removed-search');

      // queued under the old name (e.g. by the previous version's scheduler), then the workers restart on a config
      // where 'all-companies' was renamed 'every-company'
      const { jobId } = await enqueueRun(queues.sync, 'all-companies', 'schedule');
      const config = fx.config(hubspotConfig(COMPANY_SEARCH.replace('name: all-companies', 'name: every-company')));
      const worker = startSyncWorker({
        ctx,
        logger: silentLogger,
        processor: createSyncProcessor({ config, redis: connection, prefix: fx.prefix, logger: silentLogger }),
      });
      closers.push(() => worker.shutdown(2_000));

      await waitFor(async () => (await queues.sync.getJobState(jobId)) === 'failed', 20_000);
      const job = await queues.sync.getJob(jobId);
      expect(job?.attemptsMade).toBe(1);
      expect(SYNC_JOB_OPTIONS.attempts).toBeGreaterThan(1); // so attemptsMade 1 means "not retried"
      expect(job?.failedReason).toBe("no saved search named 'all-companies' in the config (known: every-company)");
      const [entry] = await listRuns(fx.redis, 'all-companies', { prefix: fx.prefix });
      expect(entry).toMatchObject({ runId: jobId, status: 'failed', error: { code: 'search_not_found' } });
      expect(fx.si.stats('worker').operations.search ?? 0).toBe(0);

      // not stuck behind its deduplication id: both names can be queued again
      expect((await enqueueRun(queues.sync, 'all-companies', 'manual')).deduplicated).toBe(false);
      expect((await enqueueRun(queues.sync, 'every-company', 'manual')).deduplicated).toBe(false);
    },
    40_000,
  );

  it('a scheduler tick for a search removed from the config is ignored (no run queued)', async () => {
    const { fx, connection, ctx, queues } = await fixtureWithQueues('removed-tick', { hubspot: false });
    const scheduler = await startScheduler({
      ctx,
      queues,
      logger: silentLogger,
      loadSearches: async () => [{ name: 'kept' }],
    });
    closers.push(() => scheduler.close());

    // a tick left by an older scheduler (or emitted just before the SIGHUP that removed the search)
    const ticks = new Queue<TickJobData>(TICK_QUEUE, { connection, prefix: fx.prefix });
    closers.push(() => ticks.close());
    const stale = await ticks.add('tick', { search: 'gone' });
    const kept = await ticks.add('tick', { search: 'kept' });
    await waitFor(
      async () =>
        (await ticks.getJobState(kept.id!)) === 'completed' && (await ticks.getJobState(stale.id!)) === 'completed',
      15_000,
    );
    expect((await ticks.getJob(stale.id!))?.returnvalue ?? null).toBeNull();
    const queued = (await queues.sync.getJobs(['waiting', 'active', 'delayed'])).map((j) => j.data.search);
    expect(queued).toEqual(['kept']);
  }, 30_000);
});
