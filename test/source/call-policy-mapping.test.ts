import { describe, expect, it } from 'vitest';
import { mapErrorResponse } from '../../src/source/call-policy.js';
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
} from '../../src/source/errors.js';

describe('source call policy: error mapping (one typed error per row of the spec error table)', () => {
  it('maps 400 validation with its paths and params', () => {
    const e = mapErrorResponse(
      400,
      {},
      {
        message: 'invalid',
        details: [
          { path: 'company.industry.include[0]', message: 'unknown value' },
          { param: 'limit', message: 'limit must be 1..100' },
        ],
      },
      'search',
    );
    expect(e).toBeInstanceOf(SourceValidationError);
    expect(e.code).toBe('source_validation_failed');
    expect((e as SourceValidationError).problems).toEqual([
      { path: 'company.industry.include[0]', message: 'unknown value' },
      { param: 'limit', message: 'limit must be 1..100' },
    ]);
    expect(e.message).toContain('company.industry.include[0]');
  });

  it('maps the cursor errors, 401, 422 and 5xx', () => {
    expect(mapErrorResponse(400, {}, { error: 'invalid_cursor', message: 'x' }, 'search')).toBeInstanceOf(
      InvalidCursorError,
    );
    expect(mapErrorResponse(400, {}, { error: 'cursor_filter_mismatch', message: 'x' }, 'search')).toBeInstanceOf(
      CursorFilterMismatchError,
    );
    expect(mapErrorResponse(401, {}, { message: 'expired' }, 'search')).toBeInstanceOf(SourceAuthError);
    expect(mapErrorResponse(422, {}, { error: 'pagination_depth_exceeded', message: 'x' }, 'search')).toBeInstanceOf(
      PaginationDepthError,
    );
    const e5 = mapErrorResponse(503, {}, 'Service Unavailable', 'count');
    expect(e5).toBeInstanceOf(SourceServerError);
    expect(e5.status).toBe(503);
    expect(mapErrorResponse(404, {}, { message: 'no route' }, undefined)).toBeInstanceOf(SourceHttpError);
  });

  it('maps 402 by reason, exhausted carrying its reset time', () => {
    const before = Date.now();
    const ex = mapErrorResponse(
      402,
      {},
      { error: 'insufficient_budget', reason: 'exhausted', retryAfter: 3600, message: 'x' },
      'search',
    );
    expect(ex).toBeInstanceOf(TokensExhaustedError);
    expect(ex.code).toBe('tokens_exhausted');
    expect((ex as TokensExhaustedError).resetAt.getTime()).toBeGreaterThanOrEqual(before + 3_600_000);
    const stale = mapErrorResponse(
      402,
      {},
      { error: 'insufficient_budget', reason: 'stale_reset', retryAfter: 0, message: 'x' },
      'search',
    );
    expect(stale).toBeInstanceOf(InsufficientBudgetError);
    expect(stale).not.toBeInstanceOf(TokensExhaustedError);
    expect((stale as InsufficientBudgetError).reason).toBe('stale_reset');
    expect(
      (mapErrorResponse(402, {}, { reason: 'store_unavailable', message: 'x' }, 'search') as InsufficientBudgetError)
        .reason,
    ).toBe('store_unavailable');
  });

  it('maps 429 with Retry-After (header first) and operation', () => {
    const e = mapErrorResponse(
      429,
      { 'retry-after': '7' },
      { error: 'rate_limit_exceeded', retryAfter: 9, operation: 'count', window: 'sustained', message: 'x' },
      'search',
    );
    expect(e).toBeInstanceOf(RateLimitedError);
    expect((e as RateLimitedError).retryAfterSeconds).toBe(7);
    expect((e as RateLimitedError).operation).toBe('count');
    expect(
      (mapErrorResponse(429, {}, { retryAfter: 4, message: 'x' }, 'dictionary') as RateLimitedError).retryAfterSeconds,
    ).toBe(4);
  });
});
