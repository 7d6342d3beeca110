/** Tells errors that only mean "Redis is not reachable right now" from real failures. */

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNABORTED',
]);
const CONNECTION_MESSAGES =
  /Connection is closed|Socket closed unexpectedly|connect ETIMEDOUT|Stream isn't writeable|max retries per request/i;

/**
 * True for socket-level errors and ioredis' "connection closed" errors. Those are reported once per outage by the
 * Redis watcher (redis-watch.ts), so the emitters that see them on every retry (BullMQ workers) stay quiet.
 */
export function isRedisConnectionError(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as NodeJS.ErrnoException).code;
  return (code !== undefined && CONNECTION_CODES.has(code)) || CONNECTION_MESSAGES.test(err.message);
}

/**
 * Redis refuses writes while its memory is full (`maxmemory` under `noeviction`): it answers again once memory frees.
 */
export function isRedisOutOfMemory(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  if (err.message.includes('OOM command not allowed')) return true;
  // A MULTI whose queued commands were refused ends EXECABORT, the refusals in `previousErrors` (ioredis).
  const previous = (err as { previousErrors?: unknown[] }).previousErrors;
  return Array.isArray(previous) && previous.some(isRedisOutOfMemory);
}

/** Redis could not be used for now (away, or out of memory): the `redis_unavailable` class of faults. */
export function isRedisUnavailable(err: unknown): boolean {
  return isRedisConnectionError(err) || isRedisOutOfMemory(err);
}
