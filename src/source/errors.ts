/**
 * Typed errors of the source client, one per row of the API's error table plus the client's own stops.
 * Codes are stable; messages never carry the token, the client secret or contact details.
 */
import { AppError } from '../shared/app-error.js';
import { ResponseTooLargeError } from '../shared/bounded-body.js';
import type { Operation } from './api-terms.js';

/** Base of every error the source client throws. `status` is the HTTP status when one was received. */
export class SourceError extends AppError {
  readonly status: number | undefined;
  constructor(
    code: string,
    message: string,
    options?: { cause?: unknown; details?: Record<string, unknown>; status?: number },
  ) {
    super(code, message, options);
    this.status = options?.status;
  }
}

export interface ValidationDetail {
  path?: string;
  param?: string;
  message: string;
}

/** 400 without an error code: the filter or a query parameter is wrong. A configuration error: never retried. */
export class SourceValidationError extends SourceError {
  readonly problems: ValidationDetail[];
  constructor(message: string, problems: ValidationDetail[]) {
    const where = problems.map((p) => `${p.path ?? p.param ?? '?'}: ${p.message}`).join('; ');
    super('source_validation_failed', where ? `${message} (${where})` : message, {
      status: 400,
      details: { problems },
    });
    this.problems = problems;
  }
}

/** 400 invalid_cursor: the journey restarts from page 1. */
export class InvalidCursorError extends SourceError {
  constructor(message: string) {
    super('invalid_cursor', message, { status: 400 });
  }
}

/** 400 cursor_filter_mismatch: the body changed mid-journey (a bug on our side, since we keep it byte-identical). */
export class CursorFilterMismatchError extends SourceError {
  constructor(message: string) {
    super('cursor_filter_mismatch', message, { status: 400 });
  }
}

/** 401 on a freshly issued token (or on every retry), or the token endpoint refusing our credentials. */
export class SourceAuthError extends SourceError {
  constructor(message: string, status?: number) {
    super('source_unauthorized', message, { status: status ?? 401 });
  }
}

/**
 * 401 on an API call: the access token was refused. The call policy refreshes the token and retries, unless the
 * refused token was `fresh` (issued just before that request): then the account itself is refused.
 */
export class AccessTokenRefusedError extends SourceAuthError {
  constructor(
    message: string,
    readonly fresh = false,
  ) {
    super(message);
  }
}

export type BudgetReason = 'exhausted' | 'stale_reset' | 'store_unavailable';

/**
 * Any 402 of the search-token budget. The two kinds below say what the call policy does with them: a budget
 * that is temporarily unavailable is retried, an exhausted one never is.
 */
export abstract class InsufficientBudgetError extends SourceError {
  readonly reason: BudgetReason;
  readonly retryAfterSeconds: number;
  constructor(reason: BudgetReason, retryAfterSeconds: number, message: string, code: string) {
    super(code, message, { status: 402, details: { reason, retryAfterSeconds } });
    this.reason = reason;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/**
 * 402 stale_reset / store_unavailable: the API cannot check the budget right now. Retried with backoff; surfaces when
 * attempts run out.
 */
export class BudgetUnavailableError extends InsufficientBudgetError {
  constructor(reason: 'stale_reset' | 'store_unavailable', retryAfterSeconds: number, message: string) {
    super(reason, retryAfterSeconds, message, 'insufficient_budget');
  }
}

/** 402 exhausted: the search-token allotment is used up until `resetAt`. Never retried: the run ends `delayed`. */
export class TokensExhaustedError extends InsufficientBudgetError {
  readonly resetAt: Date;
  constructor(retryAfterSeconds: number, message: string) {
    super('exhausted', retryAfterSeconds, message, 'tokens_exhausted');
    this.resetAt = new Date(Date.now() + retryAfterSeconds * 1000);
  }
}

/** 422 pagination_depth_exceeded: the journey passed 100,000 records; split the partition. */
export class PaginationDepthError extends SourceError {
  constructor(message: string) {
    super('pagination_depth_exceeded', message, { status: 422 });
  }
}

/** 429 rate_limit_exceeded (after the retries the policy allows). */
export class RateLimitedError extends SourceError {
  readonly retryAfterSeconds: number;
  readonly operation: Operation | undefined;
  constructor(retryAfterSeconds: number, operation: Operation | undefined, message: string) {
    super('rate_limit_exceeded', message, { status: 429, details: { retryAfterSeconds, operation } });
    this.retryAfterSeconds = retryAfterSeconds;
    this.operation = operation;
  }
}

/** 5xx (after the retries the policy allows). */
export class SourceServerError extends SourceError {
  constructor(status: number, message: string) {
    super('source_server_error', message, { status });
  }
}

/** Any other 4xx we did not expect (kept typed so the caller sees the status). */
export class SourceHttpError extends SourceError {
  constructor(status: number, message: string, apiCode?: string) {
    super('source_http_error', message, { status, details: apiCode ? { apiCode } : undefined });
  }
}

/**
 * Connection refused/reset, DNS, timeouts: no HTTP answer. `mayHaveBeenServed`: the request may have reached the
 * API (a timeout or reset after it was sent), so it may have been charged.
 */
export class SourceNetworkError extends SourceError {
  constructor(
    message: string,
    cause?: unknown,
    readonly mayHaveBeenServed = false,
  ) {
    super('source_network_error', message, { cause });
  }
}

/** A 2xx answer whose body is not what the API promises. */
export class SourceProtocolError extends SourceError {
  constructor(message: string) {
    super('source_protocol_error', message);
  }
}

/**
 * A 2xx page whose `nextCursor` breaks the spec (more than 200 characters, or not base64url): it is never sent back
 * nor stored in a checkpoint; the journey restarts from page 1.
 */
export class NextCursorError extends SourceProtocolError {
  constructor(message: string) {
    super(message);
  }
}

export type BudgetCap = 'token_reserve' | 'credit_cap_run' | 'credit_cap_day' | 'max_records';

/** A cap of ours (token reserve, credit caps, maxRecords) stopped the journey before it could be passed. */
export class BudgetStopError extends SourceError {
  readonly cap: BudgetCap;
  constructor(cap: BudgetCap, message: string) {
    super('budget_cap_reached', message, { details: { cap } });
    this.cap = cap;
  }
}

/** An offset-mode journey would need an offset above the API's 10,000. */
export class OffsetLimitError extends SourceError {
  constructor(message: string) {
    super('offset_limit_exceeded', message);
  }
}

/** A filter cannot be split so that each journey stays under the depth limit. */
export class PartitionError extends SourceError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('partition_impossible', message, { details });
  }
}

/** A resumed checkpoint does not belong to this journey's body. */
export class CheckpointMismatchError extends SourceError {
  constructor(message: string) {
    super('checkpoint_mismatch', message);
  }
}

/** The caller's AbortSignal fired. `mayHaveBeenServed`: it fired while a request was in flight. */
export class SourceAbortedError extends SourceError {
  constructor(
    cause?: unknown,
    readonly mayHaveBeenServed = false,
  ) {
    super('source_aborted', 'the request was aborted', { cause });
  }
}

/**
 * True when a request got no answer it could read but may have been served (and charged) by the API: no answer, or
 * one past the size bound (served, never read).
 */
export function outcomeUnknown(error: unknown): boolean {
  if (error instanceof ResponseTooLargeError) return true;
  return (error instanceof SourceNetworkError || error instanceof SourceAbortedError) && error.mayHaveBeenServed;
}
