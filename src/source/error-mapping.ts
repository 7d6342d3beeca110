/** Turns a non-2xx answer of the API into the typed error of its row in the spec's error table. */
import type { SourceError } from './errors.js';
import {
  CursorFilterMismatchError,
  InsufficientBudgetError,
  InvalidCursorError,
  PaginationDepthError,
  RateLimitedError,
  SourceAuthError,
  SourceHttpError,
  SourceServerError,
  SourceValidationError,
  TokensExhaustedError,
  type BudgetReason,
  type ValidationDetail,
} from './errors.js';
import { headerValue, type ResponseHeaders } from './response-headers.js';
import type { Operation } from './types.js';

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

export function mapErrorResponse(status: number, headers: ResponseHeaders, body: unknown, operation: Operation | undefined): SourceError {
  const code = field(body, 'error');
  const rawMessage = field(body, 'message');
  const message = typeof rawMessage === 'string' ? rawMessage : `HTTP ${status}`;
  if (status === 400) {
    if (code === 'invalid_cursor') return new InvalidCursorError(message);
    if (code === 'cursor_filter_mismatch') return new CursorFilterMismatchError(message);
    if (code === undefined) return new SourceValidationError(message, validationDetails(body));
  }
  if (status === 401) return new SourceAuthError(`the API refused the access token: ${message}`);
  if (status === 402) {
    const reason = field(body, 'reason');
    const retryAfter = asNumber(field(body, 'retryAfter')) ?? 0;
    if (reason === 'exhausted') return new TokensExhaustedError(retryAfter, `search-token allotment exhausted; resets in ${retryAfter} s`);
    const known: BudgetReason = reason === 'stale_reset' ? 'stale_reset' : 'store_unavailable';
    return new InsufficientBudgetError(known, retryAfter, `search budget unavailable (${known}): ${message}`);
  }
  if (status === 422 && code === 'pagination_depth_exceeded') return new PaginationDepthError(message);
  if (status === 429) {
    const retryAfter = asNumber(headerValue(headers, 'retry-after')) ?? asNumber(field(body, 'retryAfter')) ?? 1;
    const op = field(body, 'operation');
    const which = typeof op === 'string' && OPERATIONS.includes(op) ? (op as Operation) : operation;
    return new RateLimitedError(retryAfter, which, `rate limit exceeded for ${which ?? 'an operation'}; retry after ${retryAfter} s`);
  }
  if (status >= 500) return new SourceServerError(status, `the API failed with HTTP ${status}: ${message}`);
  return new SourceHttpError(status, `unexpected HTTP ${status}: ${message}`, typeof code === 'string' ? code : undefined);
}
