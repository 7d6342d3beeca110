/** Retry-After handling shared by every remote: parse (seconds or HTTP-date), cap, add jitter. */

/**
 * `Retry-After: 7` or `Retry-After: Wed, 21 Oct 2026 07:28:00 GMT` -> seconds from `now`; undefined when absent or
 * unreadable.
 */
export function parseRetryAfter(
  value: string | number | undefined | null,
  now: number = Date.now(),
): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const n = typeof value === 'number' ? value : Number(value);
  if (Number.isFinite(n)) return Math.max(0, n);
  const at = Date.parse(String(value));
  return Number.isNaN(at) ? undefined : Math.max(0, (at - now) / 1000);
}

/**
 * How long to wait on a Retry-After of `seconds`: capped at `maxSeconds` (a server asking for an hour must not
 * park a run that long), plus jitter of 100 ms + 10% (at most 1 s) so processes throttled together do not come
 * back together.
 */
export function retryAfterDelayMs(seconds: number, maxSeconds: number, random: () => number = Math.random): number {
  const waitMs = Math.min(Math.max(seconds, 0), maxSeconds) * 1000;
  return waitMs + Math.round(random() * Math.min(1000, 100 + waitMs * 0.1));
}
