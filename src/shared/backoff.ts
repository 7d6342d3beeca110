/** The one backoff formula of every remote: exponential, capped, with half jitter. */
export interface BackoffOptions {
  /** Ceiling of the first retry's wait. */
  baseDelayMs: number;
  /** No wait is longer than this. */
  maxDelayMs: number;
}

/**
 * Wait before retry number `failures` (1 = after the first failure): a ceiling of base * 2^(failures-1), capped,
 * and a uniform draw in [ceiling/2, ceiling]. Half jitter spreads processes that failed together, and the floor
 * keeps a retry from ever being immediate.
 */
export function backoffDelayMs(failures: number, options: BackoffOptions, random: () => number = Math.random): number {
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** Math.max(0, failures - 1));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}
