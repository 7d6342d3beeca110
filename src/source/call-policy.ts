/**
 * What happens when a call to the Sales-Intelligence API fails: read this file top to bottom.
 *
 * Every request first takes a slot from the account's rate governor (src/shared/rate-governor.ts, shared by every
 * run and process through Redis, limits learned from RateLimit-* headers). Then, by answer:
 *
 * - 429 rate_limit_exceeded: the governor blocks that operation for EVERY process of the account for Retry-After
 *   (capped at `maxRetryAfterSeconds`, 60 s); this call waits Retry-After (capped) plus jitter and tries again, at
 *   most `maxRateLimitAttempts` times; then RateLimitedError surfaces.
 * - 402 exhausted: never retried. It surfaces as TokensExhaustedError (with `resetAt`), which the run turns into
 *   `delayed` until the allotment resets.
 * - 402 stale_reset / store_unavailable (BudgetUnavailableError), 5xx, no answer (network, timeout): jittered
 *   exponential backoff (src/shared/backoff.ts), at most `maxAttempts` attempts in all; then the error surfaces.
 *   An attempt that got no answer but may have been served is booked at its worst case before deciding.
 * - 401: the token is refreshed and the call retried at once (it waits for a rate-limit slot again, and takes the
 *   token only once granted). A 401 on a token issued just before that request (`fresh`) is SourceAuthError: the
 *   account is refused, not the token; so is a third 401 of one call.
 * - 400 (validation, invalid_cursor, cursor_filter_mismatch), 422 pagination_depth_exceeded, other 4xx: never
 *   retried here; the journey reacts to invalid_cursor (restart) and depth (split).
 */
import { backoffDelayMs } from '../shared/backoff.js';
import type { AttemptTally, RetryDecision } from '../shared/call-with-policy.js';
import { parseRetryAfter, retryAfterDelayMs } from '../shared/retry-after.js';
import {
  AccessTokenRefusedError,
  BudgetUnavailableError,
  CursorFilterMismatchError,
  InvalidCursorError,
  PaginationDepthError,
  RateLimitedError,
  SourceAuthError,
  SourceHttpError,
  SourceNetworkError,
  SourceServerError,
  SourceValidationError,
  TokensExhaustedError,
  type SourceError,
  type ValidationDetail,
} from './errors.js';
import { headerValue, type ResponseHeaders } from './response-headers.js';
import type { Operation } from './api-terms.js';

export interface RetryOptions {
  /** Attempts for 5xx / network errors / 402 stale_reset + store_unavailable, first one included. */
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** Attempts after a 429 (the governor should make these rare). */
  maxRateLimitAttempts: number;
  /** Upper bound of a Retry-After we honour (the spec promises <= 60 s). */
  maxRetryAfterSeconds: number;
}

export const DEFAULT_RETRY: RetryOptions = {
  maxAttempts: 4,
  baseDelayMs: 250,
  maxDelayMs: 8_000,
  maxRateLimitAttempts: 5,
  maxRetryAfterSeconds: 60,
};

// ---- 1. Which error an answer is (one row of the API's error table each) ----

function asNumber(value: unknown): number | undefined {
  const n = typeof value === 'string' ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) ? n : undefined;
}

function field(body: unknown, key: string): unknown {
  return body !== null && typeof body === 'object' ? (body as Record<string, unknown>)[key] : undefined;
}

function validationDetails(body: unknown): ValidationDetail[] {
  const raw = field(body, 'details');
  if (!Array.isArray(raw)) return [];
  return raw.map((d): ValidationDetail => {
    const path = field(d, 'path');
    const param = field(d, 'param');
    const message = field(d, 'message');
    return {
      ...(typeof path === 'string' ? { path } : {}),
      ...(typeof param === 'string' ? { param } : {}),
      message: typeof message === 'string' ? message : JSON.stringify(d),
    };
  });
}

const OPERATIONS: readonly string[] = ['search', 'count', 'dictionary'];

/** Turns a non-2xx answer of the API into the typed error of its row in the spec's error table. */
export function mapErrorResponse(
  status: number,
  headers: ResponseHeaders,
  body: unknown,
  operation: Operation | undefined,
  /** A 401's token was issued just before the request (see TokenProvider.take). */
  freshToken = false,
): SourceError {
  const code = field(body, 'error');
  const rawMessage = field(body, 'message');
  const message = typeof rawMessage === 'string' ? rawMessage : `HTTP ${status}`;
  if (status === 400) {
    if (code === 'invalid_cursor') return new InvalidCursorError(message);
    if (code === 'cursor_filter_mismatch') return new CursorFilterMismatchError(message);
    if (code === undefined) return new SourceValidationError(message, validationDetails(body));
  }
  if (status === 401) return new AccessTokenRefusedError(`the API refused the access token: ${message}`, freshToken);
  if (status === 402) {
    const reason = field(body, 'reason');
    const retryAfter = asNumber(field(body, 'retryAfter')) ?? 0;
    if (reason === 'exhausted')
      return new TokensExhaustedError(retryAfter, `search-token allotment exhausted; resets in ${retryAfter} s`);
    const known = reason === 'stale_reset' ? 'stale_reset' : 'store_unavailable';
    return new BudgetUnavailableError(known, retryAfter, `search budget unavailable (${known}): ${message}`);
  }
  if (status === 422 && code === 'pagination_depth_exceeded') return new PaginationDepthError(message);
  if (status === 429) {
    const retryAfter = parseRetryAfter(headerValue(headers, 'retry-after')) ?? asNumber(field(body, 'retryAfter')) ?? 1;
    const op = field(body, 'operation');
    const which = typeof op === 'string' && OPERATIONS.includes(op) ? (op as Operation) : operation;
    return new RateLimitedError(
      retryAfter,
      which,
      `rate limit exceeded for ${which ?? 'an operation'}; retry after ${retryAfter} s`,
    );
  }
  if (status >= 500) return new SourceServerError(status, `the API failed with HTTP ${status}: ${message}`);
  return new SourceHttpError(
    status,
    `unexpected HTTP ${status}: ${message}`,
    typeof code === 'string' ? code : undefined,
  );
}

// ---- 2. Whether and when to try again ----

/** Failures of one request so far, by kind (each kind has its own attempt budget), this one included. */
export interface AttemptCounts {
  failures: number;
  throttles: number;
  refusedTokens?: number;
}

/** 401s of one call after which it stops even when no refused token was fresh (another caller's refresh won). */
const MAX_REFUSED_TOKENS = 3;

export type SourceRetryDecision =
  | { retry: false; error?: unknown }
  | { retry: true; delayMs: number; kind: 'backoff' | 'rate_limit' | 'token_refresh' };

export function decideRetry(
  error: unknown,
  attempts: AttemptCounts,
  options: RetryOptions,
  random: () => number = Math.random,
): SourceRetryDecision {
  if (error instanceof RateLimitedError) {
    if (attempts.throttles >= options.maxRateLimitAttempts) return { retry: false };
    return {
      retry: true,
      kind: 'rate_limit',
      delayMs: retryAfterDelayMs(error.retryAfterSeconds, options.maxRetryAfterSeconds, random),
    };
  }
  if (error instanceof AccessTokenRefusedError) {
    if (error.fresh) {
      return {
        retry: false,
        error: new SourceAuthError('the API refused a freshly issued access token; check the account has API access'),
      };
    }
    if ((attempts.refusedTokens ?? 0) >= MAX_REFUSED_TOKENS) {
      return {
        retry: false,
        error: new SourceAuthError(
          `the API refused ${MAX_REFUSED_TOKENS} access tokens in a row; check the account has API access`,
        ),
      };
    }
    return { retry: true, kind: 'token_refresh', delayMs: 0 };
  }
  const transient =
    error instanceof SourceServerError ||
    error instanceof SourceNetworkError ||
    error instanceof BudgetUnavailableError;
  if (!transient || attempts.failures >= options.maxAttempts) return { retry: false };
  return { retry: true, kind: 'backoff', delayMs: backoffDelayMs(attempts.failures, options, random) };
}

/** The attempt budget a failure counts against. */
function kindOf(error: unknown): 'throttles' | 'refusedTokens' | 'failures' {
  if (error instanceof RateLimitedError) return 'throttles';
  if (error instanceof AccessTokenRefusedError) return 'refusedTokens';
  return 'failures';
}

export interface SourcePolicyHooks {
  /** Pauses `op` for every process of the account (the rate governor's block). */
  blockOperation(op: Operation, ms: number): Promise<void>;
  /** An attempt got no answer but may have been served: book it (and reserve again when `retrying`). */
  onOutcomeUnknown?: (error: unknown, retrying: boolean) => Promise<void>;
}

/** The `decide` of src/shared/call-with-policy.ts for one API request of `operation`. */
export function sourceDecider(operation: Operation | undefined, options: RetryOptions, hooks: SourcePolicyHooks) {
  return async (error: unknown, tally: AttemptTally): Promise<RetryDecision> => {
    const kind = kindOf(error);
    tally.add(kind);
    if (error instanceof RateLimitedError) {
      const op = error.operation ?? operation ?? 'search';
      await hooks.blockOperation(op, Math.min(error.retryAfterSeconds, options.maxRetryAfterSeconds) * 1000);
    }
    const decision = decideRetry(
      error,
      { failures: tally.of('failures'), throttles: tally.of('throttles'), refusedTokens: tally.of('refusedTokens') },
      options,
    );
    await hooks.onOutcomeUnknown?.(error, decision.retry);
    return decision;
  };
}
