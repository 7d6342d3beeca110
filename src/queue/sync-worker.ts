import { DelayedError, MetricsTime, WaitingError, Worker } from 'bullmq';
import type { Logger } from '../shared/logger.js';
import { isRedisConnectionError } from '../shared/redis-connection-error.js';
import { SYNC_QUEUE, type SyncJobData, type SyncJobResult, type SyncProcessor } from './job-data.js';
import { MAX_STARTED_ATTEMPTS, SYNC_BACKOFF_TYPE, syncBackoff } from './job-options.js';
import type { QueueContext } from './queue-context.js';
import { SYNC_LOCK_DURATION_MS, SYNC_LOCK_RENEW_MS, SYNC_STALLED_INTERVAL_MS } from './worker-locks.js';

export interface SyncWorkerOptions {
  ctx: QueueContext;
  processor: SyncProcessor;
  /** Runs at once in this process (config `worker.concurrency`). */
  concurrency?: number;
  logger: Logger;
  /** BullMQ lock settings (default: worker-locks.ts); a crashed worker's run is picked up again after about
   * lockDuration + stalledInterval. */
  lockDuration?: number;
  lockRenewTime?: number;
  stalledInterval?: number;
}

export interface SyncWorkerHandle {
  readonly worker: Worker<SyncJobData, SyncJobResult>;
  /**
   * Stops taking jobs, aborts the running processors (they checkpoint and throw) and waits up to `graceMs` for
   * them. Aborted runs go back to `wait` without using an attempt. Resolves false if the grace period ran out.
   */
  shutdown(graceMs?: number): Promise<boolean>;
}

export const SHUTDOWN_REASON = 'worker shutting down';

const isDelayLike = (err: unknown): boolean =>
  err instanceof DelayedError || err instanceof WaitingError || (err as Error | undefined)?.name === 'DelayedError';

export function startSyncWorker(opts: SyncWorkerOptions): SyncWorkerHandle {
  const { logger } = opts;
  let stopping = false;

  // Three declared parameters: BullMQ passes the AbortSignal only to processors whose arity is >= 3.
  const processJob = async (
    job: Parameters<SyncProcessor>[0],
    token: string | undefined,
    signal?: AbortSignal,
  ): Promise<SyncJobResult> => {
    const effective = signal ?? new AbortController().signal;
    try {
      return await opts.processor(job, token, effective);
    } catch (err) {
      if (stopping && effective.aborted && !isDelayLike(err)) {
        // Interrupted by our shutdown, not failed: the processor has checkpointed; another worker resumes it.
        await job.moveToWait(token);
        logger.info({ jobId: job.id, search: job.data.search }, 'run interrupted by shutdown; back to wait');
        throw new WaitingError();
      }
      throw err;
    }
  };

  const worker = new Worker<SyncJobData, SyncJobResult>(SYNC_QUEUE, processJob, {
    connection: opts.ctx.connection,
    prefix: opts.ctx.prefix,
    concurrency: opts.concurrency ?? 1,
    maxStartedAttempts: MAX_STARTED_ATTEMPTS,
    // A stall (worker died, lock lost) resumes from the checkpoint; BullMQ's default of 1 would fail a run whose
    // worker dies twice. The bound on a run that keeps killing its worker is maxStartedAttempts.
    maxStalledCount: MAX_STARTED_ATTEMPTS,
    // Per-minute completed/failed counts behind /metrics' bullmq_job_*_total.
    metrics: { maxDataPoints: MetricsTime.ONE_WEEK },
    settings: {
      backoffStrategy: (attempts, type, err, job) =>
        type === SYNC_BACKOFF_TYPE ? syncBackoff(attempts, type, err, job) : 0,
    },
    lockDuration: opts.lockDuration ?? SYNC_LOCK_DURATION_MS,
    // An explicit shorter lock without its own renewal period renews at BullMQ's default (half the lock).
    lockRenewTime: opts.lockRenewTime ?? (opts.lockDuration === undefined ? SYNC_LOCK_RENEW_MS : opts.lockDuration / 2),
    stalledInterval: opts.stalledInterval ?? SYNC_STALLED_INTERVAL_MS,
  });
  // Redis outages are logged once by the connection's watcher (shared/redis-watch.ts), not on every retry.
  worker.on('error', (err) =>
    isRedisConnectionError(err)
      ? logger.debug({ err: err.message }, 'sync worker: Redis unreachable')
      : logger.error({ err }, 'sync worker error'),
  );
  worker.on('failed', (job, err) =>
    logger.warn(
      { jobId: job?.id, search: job?.data.search, attemptsMade: job?.attemptsMade, err: err.message },
      'run attempt failed',
    ),
  );
  worker.on('completed', (job, result) => logger.info({ jobId: job.id, ...result }, 'run finished'));

  return {
    worker,
    async shutdown(graceMs = 25_000) {
      stopping = true;
      // Redis unreachable: runs cannot checkpoint or be put back; their locks lapse and they resume as stalled.
      const closed = worker.close(opts.ctx.connection.status !== 'ready');
      worker.cancelAllJobs(SHUTDOWN_REASON);
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), graceMs);
      });
      const done = await Promise.race([closed.then(() => true as const), timedOut]);
      clearTimeout(timer);
      if (!done)
        logger.error({ graceMs }, 'runs did not stop in time; their locks will expire and they resume as stalled');
      return done;
    },
  };
}
