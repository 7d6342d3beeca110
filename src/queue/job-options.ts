/**
 * Attempts, backoff and retention of every job type, in one place.
 */
import type { BackoffStrategy, DefaultJobOptions } from 'bullmq';

export const SYNC_BACKOFF_TYPE = 'sync';

const BACKOFF_BASE_MS = 5_000;
const BACKOFF_MAX_MS = 5 * 60_000;

/**
 * Keep finished runs long enough to inspect them on the dashboard, but bounded: BullMQ keeps them forever otherwise.
 */
const KEEP_COMPLETED = { age: 7 * 24 * 3600, count: 1000 };
const KEEP_FAILED = { age: 30 * 24 * 3600, count: 5000 };

export const SYNC_JOB_OPTIONS: DefaultJobOptions = {
  attempts: 5,
  backoff: { type: SYNC_BACKOFF_TYPE },
  removeOnComplete: KEEP_COMPLETED,
  removeOnFail: KEEP_FAILED,
};

/** A tick only enqueues a run: retry quickly, keep little. */
export const TICK_JOB_OPTIONS: DefaultJobOptions = {
  attempts: 3,
  backoff: { type: 'fixed', delay: 1_000 },
  removeOnComplete: { count: 100 },
  removeOnFail: { count: 500 },
};

/**
 * Every start of a run counts (stalls and shutdowns included), so the cap is well above `attempts`: it only stops
 * a run that keeps crashing its worker. Delays for an exhausted budget (DelayedError) also count as starts.
 */
export const MAX_STARTED_ATTEMPTS = 50;

/**
 * Exponential with jitter (half to full step), capped. An error may carry `retryAfterMs` (e.g. a remote's Retry-After):
 * then that wins, so a retry never comes back before the remote said it would answer.
 */
export const syncBackoff: BackoffStrategy = (attemptsMade, _type, err) => {
  const hinted = (err as { retryAfterMs?: unknown } | undefined)?.retryAfterMs;
  if (typeof hinted === 'number' && Number.isFinite(hinted) && hinted >= 0) return hinted;
  const ceiling = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** Math.max(0, attemptsMade - 1));
  return Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
};
