/**
 * The one place that decides whether a failed source request is retried, and after how long.
 * 5xx / network / 402 stale_reset + store_unavailable: exponential backoff with full jitter, few attempts.
 * 429: Retry-After (capped) plus jitter. 402 exhausted, 400, 401 (handled by the token refresh), 422: never.
 */
import {
  InsufficientBudgetError,
  RateLimitedError,
  SourceNetworkError,
  SourceServerError,
  TokensExhaustedError,
} from './errors.js';
import type { RetryOptions } from './types.js';

export const DEFAULT_RETRY: RetryOptions = {
  maxAttempts: 4,
  baseDelayMs: 250,
  maxDelayMs: 8_000,
  maxRateLimitAttempts: 5,
  maxRetryAfterSeconds: 60,
};

export type RetryDecision = { retry: false } | { retry: true; delayMs: number; kind: 'backoff' | 'rate_limit' };

/** Failures so far of one request, by kind (each kind has its own attempt budget). */
export interface AttemptCounts {
  failures: number;
  throttles: number;
}

export function decideRetry(error: unknown, attempts: AttemptCounts, options: RetryOptions, random: () => number = Math.random): RetryDecision {
  if (error instanceof RateLimitedError) {
    if (attempts.throttles >= options.maxRateLimitAttempts) return { retry: false };
    const waitMs = Math.min(Math.max(error.retryAfterSeconds, 0), options.maxRetryAfterSeconds) * 1000;
    // Jitter spreads the processes that were throttled together over the next window.
    return { retry: true, kind: 'rate_limit', delayMs: waitMs + Math.round(random() * Math.min(1000, 100 + waitMs * 0.1)) };
  }
  const transient =
    error instanceof SourceServerError ||
    error instanceof SourceNetworkError ||
    (error instanceof InsufficientBudgetError && !(error instanceof TokensExhaustedError));
  if (!transient || attempts.failures >= options.maxAttempts) return { retry: false };
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** (attempts.failures - 1));
  // Full jitter, with a floor so a retry is never immediate.
  return { retry: true, kind: 'backoff', delayMs: Math.round(ceiling / 2 + random() * (ceiling / 2)) };
}
