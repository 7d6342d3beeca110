import type { Redis } from 'ioredis';
import { AppError } from '../shared/app-error.js';

/** A route's Redis (or probe) work did not answer in time: served as 503 with this reason, never a hang. */
export class DependencyUnavailableError extends AppError {
  constructor(what: string, timeoutMs: number) {
    super('dependency_unavailable', `${what} did not answer within ${timeoutMs} ms`, { details: { what, timeoutMs } });
  }
}

/** Resolves with `work`, or rejects with DependencyUnavailableError after `timeoutMs` (the work is left to finish). */
export async function withDeadline<T>(work: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new DependencyUnavailableError(what, timeoutMs)), timeoutMs);
  });
  work.catch(() => undefined); // a late failure after the deadline is not an unhandled rejection
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Whether Redis answers a PING within `timeoutMs`. Bounded because with BullMQ's `maxRetriesPerRequest: null` a
 * command on a dead connection waits for the reconnect forever; a closed connection counts as down at once.
 */
export async function redisAnswers(redis: Redis, timeoutMs: number): Promise<boolean> {
  if (redis.status === 'end') return false;
  try {
    return (await withDeadline(redis.ping(), timeoutMs, 'redis')) === 'PONG';
  } catch {
    return false;
  }
}
