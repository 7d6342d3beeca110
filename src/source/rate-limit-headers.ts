/**
 * What the API's RateLimit-* headers teach the account's governor (src/shared/rate-governor.ts): limit and window
 * per operation from RateLimit-Policy / RateLimit-Limit, and from RateLimit-Reset when the window that counted a
 * request ends (its grant is then held until that end, not a whole window); without headers the configured
 * fallback (times `fallbackShare`) applies. Until the first answer only one probe request per operation runs.
 */
import type { Redis } from 'ioredis';
import { RateGovernor, type LearnedLimit } from '../shared/rate-governor.js';
import { headerValue, type ResponseHeaders } from './response-headers.js';
import type { Operation } from './api-terms.js';

export interface FallbackLimits {
  search: number;
  count: number;
  dictionary: number;
  windowSeconds: number;
}

export interface GovernorOptions {
  /**
   * Extra time added to the window when spacing requests, covering the delay between our grant and the server's
   * clock. Default: 2% of the window, clamped to 100..1000 ms.
   */
  guardMs?: number;
  /** Share of the configured fallback limit used while RateLimit-* headers are absent. Default 0.9. */
  fallbackShare?: number;
}

/** `RateLimit-Policy: 30;w=2` (and/or `RateLimit-Limit: 30`) -> limit + window; null when absent. */
export function parseRateLimitHeaders(headers: ResponseHeaders): { limit: number; windowMs: number | null } | null {
  const policy = headerValue(headers, 'ratelimit-policy');
  if (policy) {
    const [first] = policy.split(',');
    const match = /^\s*(\d+)\s*(?:;(.*))?$/.exec(first ?? '');
    if (match) {
      const w = /(?:^|;)\s*w\s*=\s*(\d+(?:\.\d+)?)/.exec(match[2] ?? '');
      return { limit: Number(match[1]), windowMs: w ? Math.round(Number(w[1]) * 1000) : null };
    }
  }
  const limit = Number(headerValue(headers, 'ratelimit-limit'));
  return Number.isFinite(limit) && limit > 0 ? { limit, windowMs: null } : null;
}

/**
 * `RateLimit-Reset` (seconds until the window resets) -> the latest the window that counted the request can end, in
 * ms from the answer. The spec does not say how the seconds are rounded: whole seconds may be rounded either way, so
 * a whole second is added; a value with decimals is taken as rounded at its last digit. Undefined when absent or not
 * a plain number of seconds (a date, an epoch), so the grant is held a whole window as without the header.
 */
export function windowEndsInMs(headers: ResponseHeaders): number | undefined {
  const raw = headerValue(headers, 'ratelimit-reset');
  const match = raw === undefined ? null : /^\s*(\d+)(?:\.(\d+))?\s*$/.exec(raw);
  if (!match) return undefined;
  const unitMs = match[2] === undefined ? 1000 : Math.max(1, 1000 / 10 ** match[2].length);
  return Number(match[0]) * 1000 + unitMs;
}

/**
 * What a window loses at most to `windowEndsInMs`'s rounding allowance: a whole second for windows of whole seconds
 * (their Reset is whole seconds), else a millisecond. A window's grants fit in the rest of it, so journeys are sized
 * for that rest.
 */
export function resetRoundingMs(windowMs: number): number {
  return windowMs >= 2000 && windowMs % 1000 === 0 ? 1000 : 1;
}

/** The governor of one API account (`accountKey` is a hash, never the secret), with header learning. */
export class ApiGovernor extends RateGovernor {
  private readonly fallbackShare: number;

  constructor(
    redis: Redis,
    prefix: string,
    accountKey: string,
    private readonly fallback: FallbackLimits,
    options: GovernorOptions = {},
  ) {
    super(redis, prefix, 'source', accountKey, {
      untilLearned: 'probe',
      defaultWindowMs: fallback.windowSeconds * 1000,
      ...(options.guardMs === undefined ? {} : { guardMs: options.guardMs }),
    });
    this.fallbackShare = options.fallbackShare ?? 0.9;
  }

  /** Learns limit and window from a response's headers; falls back to the configured limits when absent. */
  async observe(op: Operation, headers: ResponseHeaders): Promise<LearnedLimit> {
    const learned = await this.learnedFrom(op, headers);
    await this.learn(op, learned);
    return learned;
  }

  /**
   * What a response's headers say of `op`'s limit (nothing written: `settle` writes it with the answer's other facts).
   */
  async learnedFrom(op: Operation, headers: ResponseHeaders): Promise<LearnedLimit> {
    const parsed = parseRateLimitHeaders(headers);
    return parsed
      ? {
          limit: parsed.limit,
          windowMs: parsed.windowMs ?? (await this.current(op))?.windowMs ?? this.fallback.windowSeconds * 1000,
          mode: 'headers',
        }
      : {
          limit: Math.max(1, Math.floor(this.fallback[op] * this.fallbackShare)),
          windowMs: this.fallback.windowSeconds * 1000,
          mode: 'fallback',
        };
  }
}
