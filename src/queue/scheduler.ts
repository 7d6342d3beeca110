import { Worker } from 'bullmq';
import type { Logger } from '../shared/logger.js';
import { isRedisConnectionError } from '../shared/redis-connection-error.js';
import { enqueueRun, type EnqueueResult } from './enqueue-run.js';
import { TICK_QUEUE, type TickJobData } from './job-data.js';
import { LeaderLock } from './leader-lock.js';
import type { AppQueues, QueueContext } from './queue-context.js';
import type { SchedulableSearch } from './schedule-spec.js';
import { syncJobSchedulers } from './scheduler-sync.js';
import { retireRemovedSearches } from '../runs/search-retention.js';

export interface SchedulerOptions {
  ctx: QueueContext;
  queues: AppQueues;
  /** Reads the config's saved searches; called at start and on every reload. Throws on an invalid config. */
  loadSearches: () => Promise<readonly SchedulableSearch[]>;
  logger: Logger;
  /** Leader lease; default 15 s. */
  leaseMs?: number;
}

export interface SchedulerHandle {
  readonly isLeader: boolean;
  /** Re-reads the config (SIGHUP). An invalid config is logged and the previous one kept. */
  reload(): Promise<void>;
  close(): Promise<void>;
}

export const leaderKey = (prefix: string): string => `${prefix}:scheduler:leader`;

/**
 * The scheduler role: the leader (one across processes) keeps the Job Schedulers equal to the config; every
 * scheduler process handles ticks, each of which enqueues a deduplicated run of its search.
 */
export async function startScheduler(opts: SchedulerOptions): Promise<SchedulerHandle> {
  const { queues, logger } = opts;
  let searches = await opts.loadSearches();

  const sync = async (): Promise<void> => {
    const result = await syncJobSchedulers(queues.tick, searches);
    logger.info(result, 'job schedulers synced with the config');
    // Run state of searches no longer in the config expires (docs/operations.md "Keys and their lifetimes").
    const retention = await retireRemovedSearches(
      opts.ctx.connection,
      opts.ctx.prefix,
      searches.map((s) => s.name),
    );
    if (retention.retired.length + retention.restored.length > 0)
      logger.info(retention, 'run state of removed searches set to expire');
  };

  const lock = new LeaderLock({
    redis: opts.ctx.connection,
    key: leaderKey(opts.ctx.prefix),
    ttlMs: opts.leaseMs,
    logger,
    onAcquired: sync,
  });

  const tickWorker = new Worker<TickJobData, EnqueueResult | undefined>(
    TICK_QUEUE,
    async (job) => {
      const { search } = job.data;
      if (!searches.some((s) => s.name === search)) {
        logger.warn({ search }, 'tick for a search no longer in the config; ignored');
        return undefined;
      }
      const result = await enqueueRun(queues.sync, search, 'schedule');
      logger.info(
        result,
        result.deduplicated ? 'scheduled run skipped: one is already pending' : 'scheduled run queued',
      );
      return result;
    },
    { connection: opts.ctx.connection, prefix: opts.ctx.prefix, concurrency: 1 },
  );
  // Redis outages are logged once by the connection's watcher (shared/redis-watch.ts), not on every retry.
  tickWorker.on('error', (err) =>
    isRedisConnectionError(err)
      ? logger.debug({ err: err.message }, 'tick worker: Redis unreachable')
      : logger.error({ err }, 'tick worker error'),
  );

  await lock.start();

  return {
    get isLeader() {
      return lock.isLeader;
    },
    async reload() {
      try {
        searches = await opts.loadSearches();
      } catch (err) {
        logger.error({ err }, 'config reload failed; keeping the previous config');
        return;
      }
      if (lock.isLeader) await sync();
    },
    async close() {
      await lock.stop();
      // Redis unreachable: nothing to hand back, do not wait for it.
      await tickWorker.close(opts.ctx.connection.status !== 'ready');
    },
  };
}
