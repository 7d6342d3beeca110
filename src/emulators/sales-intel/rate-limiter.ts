/** Fixed, aligned windows per account per operation; limits come from the account's package. */
import type { RateOperation, ResetRounding } from './types.js';

export interface RateDecision {
  allowed: boolean;
  /** Requests counted in this window so far, this one included (refused ones too). */
  count: number;
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
  windowSeconds: number;
}

export class RateLimiter {
  private readonly used = new Map<string, { windowStart: number; count: number }>();

  constructor(
    private readonly windowSeconds: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts one request and decides; a refused request also counts (it used the window). */
  hit(accountId: string, operation: RateOperation, limit: number, force = false): RateDecision {
    const windowMs = this.windowSeconds * 1000;
    const now = this.now();
    const windowStart = Math.floor(now / windowMs) * windowMs;
    const key = `${accountId}\u0000${operation}`;
    let state = this.used.get(key);
    if (!state || state.windowStart !== windowStart) {
      state = { windowStart, count: 0 };
      this.used.set(key, state);
    }
    state.count++;
    const allowed = !force && state.count <= limit;
    return {
      allowed,
      count: state.count,
      limit,
      remaining: Math.max(0, limit - state.count),
      resetSeconds: (windowStart + windowMs - now) / 1000,
      windowSeconds: this.windowSeconds,
    };
  }
}

/** Whole seconds when the window is whole seconds (the documented case); 3 decimals when compressed for tests. */
export function formatSeconds(seconds: number, windowSeconds: number, rounding: ResetRounding = 'up'): string {
  const round = rounding === 'up' ? Math.ceil : Math.floor;
  if (Number.isInteger(windowSeconds)) return String(Math.max(0, round(seconds)));
  return String(Math.max(0, round(seconds * 1000) / 1000));
}

export function rateLimitHeaders(d: RateDecision, resetRounding: ResetRounding = 'up'): Record<string, string> {
  return {
    'RateLimit-Limit': String(d.limit),
    'RateLimit-Remaining': String(d.remaining),
    'RateLimit-Reset': formatSeconds(d.resetSeconds, d.windowSeconds, resetRounding),
    'RateLimit-Policy': `${d.limit};w=${d.windowSeconds}`,
  };
}
