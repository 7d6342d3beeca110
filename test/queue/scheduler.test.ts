import { describe, expect, it } from 'vitest';
import {
  enqueueRun,
  leaderKey,
  openQueues,
  startScheduler,
  startSyncWorker,
  type AppQueues,
  type SchedulableSearch,
  type SchedulerHandle,
  type SyncJobData,
  type SyncWorkerHandle,
} from '../../src/queue/index.js';
import { silentLogger } from '../../src/shared/logger.js';
import { recordRun } from '../../src/runs/run-history.js';
import { emptyCounts } from '../../src/runs/run-summary.js';
import { RETIRED_SEARCH_TTL_SECONDS } from '../../src/runs/search-retention.js';
import { addRunMatched, MembershipStore } from '../../src/runs/membership-store.js';
import { RevealStore } from '../../src/source/reveal-store.js';
import { queueEnv, waitFor } from './queue-env.js';
import { closeAfterEach } from '../helpers/closers.js';

describe('scheduler and worker', () => {
  const closers = closeAfterEach();

  async function setup(label: string): Promise<{ env: Awaited<ReturnType<typeof queueEnv>>; queues: AppQueues }> {
    const env = await queueEnv(label);
    const queues = openQueues(env.ctx);
    closers.push(env.cleanup, queues.close);
    return { env, queues };
  }

  it(
    'an every-based scheduler fires, its tick enqueues a run, and the worker processes it with the injected ' +
      'processor',
    async () => {
      const { env, queues } = await setup('sched-fire');
      const seen: SyncJobData[] = [];
      const worker = startSyncWorker({
        ctx: env.ctx,
        logger: silentLogger,
        processor: async (job, token, signal) => {
          expect(typeof token).toBe('string');
          expect(signal).toBeInstanceOf(AbortSignal);
          seen.push(job.data);
          return { search: job.data.search, status: 'completed' };
        },
      });
      closers.push(() => worker.shutdown(5_000));
      const scheduler = await startScheduler({
        ctx: env.ctx,
        queues,
        logger: silentLogger,
        loadSearches: async () => [{ name: 'fast', schedule: { every: 300 } }],
      });
      closers.push(scheduler.close);
      expect(scheduler.isLeader).toBe(true);

      await waitFor(() => seen.length >= 2 || undefined, 15_000);
      expect(seen[0]).toMatchObject({ search: 'fast', trigger: 'schedule' });
      expect(seen[0]?.runId).not.toBe(seen[1]?.runId);
      const completed = await queues.sync.getCompleted();
      expect(completed[0]?.returnvalue).toEqual({ search: 'fast', status: 'completed' });
    },
  );

  it('two scheduler processes: one leader; the standby takes over when the leader stops', async () => {
    const { env, queues } = await setup('sched-leader');
    const searches: SchedulableSearch[] = [{ name: 'daily', schedule: { cron: '0 6 * * *', timezone: 'UTC' } }];
    const start = (): Promise<SchedulerHandle> =>
      startScheduler({
        ctx: env.ctx,
        queues,
        logger: silentLogger,
        loadSearches: async () => searches,
        leaseMs: 1_500,
      });
    const a = await start();
    const b = await start();
    closers.push(a.close, b.close);
    expect([a.isLeader, b.isLeader]).toEqual([true, false]);
    await new Promise((r) => setTimeout(r, 1_700)); // past one lease: a renews, b stays standby
    expect([a.isLeader, b.isLeader]).toEqual([true, false]);
    expect(await env.ctx.connection.get(leaderKey(env.ctx.prefix))).toBeTruthy();

    await a.close();
    await waitFor(() => b.isLeader, 5_000);
    expect((await queues.tick.getJobSchedulers(0, -1)).map((s) => s.key)).toEqual(['daily']);
  });

  it('reload applies a changed config and keeps the old one when the new one is invalid', async () => {
    const { env, queues } = await setup('sched-reload');
    let next: () => Promise<SchedulableSearch[]> = async () => [
      { name: 'one', schedule: { every: '1h' } },
      { name: 'two', schedule: { every: '2h' } },
    ];
    const scheduler = await startScheduler({ ctx: env.ctx, queues, logger: silentLogger, loadSearches: () => next() });
    closers.push(scheduler.close);
    const ids = async (): Promise<string[]> => (await queues.tick.getJobSchedulers(0, -1)).map((s) => s.key).sort();
    expect(await ids()).toEqual(['one', 'two']);

    next = async () => [{ name: 'two', schedule: { cron: '*/5 * * * *' } }];
    await scheduler.reload();
    expect(await ids()).toEqual(['two']);

    next = async () => {
      throw new Error('config_invalid');
    };
    await scheduler.reload();
    expect(await ids()).toEqual(['two']);
  });

  it(
    'a manual trigger while a run is active is reported, not doubled; after it finishes a new run is ' + 'accepted',
    async () => {
      const { env, queues } = await setup('trigger-dedup');
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      let runs = 0;
      const worker: SyncWorkerHandle = startSyncWorker({
        ctx: env.ctx,
        logger: silentLogger,
        concurrency: 2,
        processor: async (job) => {
          runs += 1;
          await gate;
          return { search: job.data.search, status: 'completed' };
        },
      });
      closers.push(() => worker.shutdown(5_000));

      const first = await enqueueRun(queues.sync, 'dach', 'manual');
      expect(first.deduplicated).toBe(false);
      await waitFor(async () => (await queues.sync.getJobState(first.jobId)) === 'active');

      const second = await enqueueRun(queues.sync, 'dach', 'manual');
      expect(second).toMatchObject({ deduplicated: true, jobId: first.jobId, state: 'active' });
      const other = await enqueueRun(queues.sync, 'other', 'manual');
      expect(other.deduplicated).toBe(false);
      // the worker picks 'other' up as soon as it polls (concurrency 2): wait for it, the machine may be busy
      await waitFor(async () => (await queues.sync.getJobCounts('active')).active === 2);
      expect(await queues.sync.getJobCounts('waiting', 'active', 'delayed')).toMatchObject({ waiting: 0, active: 2 });

      release();
      await waitFor(async () => (await queues.sync.getJobState(first.jobId)) === 'completed');
      expect(runs).toBe(2);
      const third = await enqueueRun(queues.sync, 'dach', 'manual');
      expect(third.deduplicated).toBe(false);
      expect(third.jobId).not.toBe(first.jobId);
    },
  );

  it(
    'the run history, totals, mirror membership and reveal tally of a search removed from the config expire; back ' +
      'in the config, they stay',
    async () => {
      const { env, queues } = await setup('sched-retire');
      const { connection: redis, prefix } = env.ctx;
      const at = new Date().toISOString();
      for (const search of ['kept', 'gone']) {
        await recordRun(
          redis,
          {
            search,
            status: 'completed',
            ...emptyCounts(),
            durationMs: 1,
            runId: `${search}-1`,
            startedAt: at,
            finishedAt: at,
            dryRun: false,
            partitions: 1,
          },
          { prefix },
        );
      }
      await new RevealStore(redis, `${prefix}:source:acct`, 180).tally('gone:fp', 'gone-1', new Map([[1, 1]]));
      // the mirror's membership of `gone` in one CRM instance (its record flags' meta and one bucket, and the guard)
      await addRunMatched(redis, 'gone', 'gone-1', ['a', 'b'], prefix);
      await new MembershipStore(redis, 'gone', 'hubspot:1', prefix).settle('gone-1', { confirmRuns: 2, maxShare: 0.1 });
      const records = `${prefix}:mirror:{gone}:hubspot:1:records`;
      const membership = [records, ...(await redis.keys(`${records}:*`)), `${prefix}:mirror:{gone}:hubspot:1:meta`];
      expect(membership).toHaveLength(3);
      const gone = [
        `${prefix}:run:gone:history`,
        `${prefix}:run:gone:totals`,
        ...membership,
        `${prefix}:source:acct:reveal-tally:gone:fp:last`,
        `${prefix}:source:acct:reveal-tally:gone:fp:gone-1`,
      ];
      const kept = [`${prefix}:run:kept:history`, `${prefix}:run:kept:totals`];
      for (const key of kept) expect(await redis.ttl(key)).toBe(-1);

      let searches: SchedulableSearch[] = [{ name: 'kept' }];
      const scheduler = await startScheduler({
        ctx: env.ctx,
        queues,
        logger: silentLogger,
        loadSearches: async () => searches,
      });
      closers.push(scheduler.close);
      expect(scheduler.isLeader).toBe(true);
      for (const key of gone) {
        const ttl = await redis.ttl(key);
        expect(ttl, key).toBeGreaterThan(RETIRED_SEARCH_TTL_SECONDS - 60);
        expect(ttl, key).toBeLessThanOrEqual(RETIRED_SEARCH_TTL_SECONDS);
      }
      for (const key of kept) expect(await redis.ttl(key), key).toBe(-1);

      searches = [{ name: 'kept' }, { name: 'gone' }];
      await scheduler.reload();
      for (const key of gone.slice(0, 4)) expect(await redis.ttl(key), key).toBe(-1);
    },
  );
});
