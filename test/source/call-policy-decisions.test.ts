import { describe, expect, it } from 'vitest';
import {
  CursorFilterMismatchError,
  BudgetUnavailableError,
  InvalidCursorError,
  PaginationDepthError,
  RateLimitedError,
  SourceNetworkError,
  SourceServerError,
  SourceValidationError,
  TokensExhaustedError,
} from '../../src/source/errors.js';
import { AttemptTally } from '../../src/shared/call-with-policy.js';
import { AccessTokenRefusedError } from '../../src/source/errors.js';
import { DEFAULT_RETRY, decideRetry, sourceDecider } from '../../src/source/call-policy.js';

const opts = { ...DEFAULT_RETRY, maxAttempts: 3, baseDelayMs: 100, maxDelayMs: 1000, maxRateLimitAttempts: 2 };

describe('source call policy: decisions', () => {
  it('backs off exponentially with jitter on 5xx and network errors, a few attempts only', () => {
    for (const error of [new SourceServerError(503, 'x'), new SourceNetworkError('x')]) {
      const d1 = decideRetry(error, { failures: 1, throttles: 0 }, opts, () => 1);
      const d2 = decideRetry(error, { failures: 2, throttles: 0 }, opts, () => 1);
      expect(d1).toEqual({ retry: true, kind: 'backoff', delayMs: 100 });
      expect(d2).toEqual({ retry: true, kind: 'backoff', delayMs: 200 });
      expect(decideRetry(error, { failures: 2, throttles: 0 }, opts, () => 0)).toEqual({
        retry: true,
        kind: 'backoff',
        delayMs: 100,
      });
      expect(decideRetry(error, { failures: 3, throttles: 0 }, opts)).toEqual({ retry: false });
    }
    const capped = decideRetry(
      new SourceServerError(500, 'x'),
      { failures: 2, throttles: 0 },
      { ...opts, maxAttempts: 10, baseDelayMs: 800 },
      () => 1,
    );
    expect(capped).toEqual({ retry: true, kind: 'backoff', delayMs: 1000 });
  });

  it('waits Retry-After (capped at 60 s) plus jitter on 429', () => {
    const d = decideRetry(new RateLimitedError(2, 'search', 'x'), { failures: 0, throttles: 1 }, opts, () => 0.5);
    expect(d.retry && d.kind).toBe('rate_limit');
    expect(d.retry && d.delayMs).toBeGreaterThanOrEqual(2000);
    expect(d.retry && d.delayMs).toBeLessThan(2400);
    const long = decideRetry(new RateLimitedError(3600, 'search', 'x'), { failures: 0, throttles: 1 }, opts, () => 0);
    expect(long).toEqual({ retry: true, kind: 'rate_limit', delayMs: 60_000 });
    expect(decideRetry(new RateLimitedError(1, 'count', 'x'), { failures: 0, throttles: 2 }, opts)).toEqual({
      retry: false,
    });
  });

  it('backs off on 402 stale_reset / store_unavailable but never retries 402 exhausted', () => {
    expect(
      decideRetry(new BudgetUnavailableError('stale_reset', 0, 'x'), { failures: 1, throttles: 0 }, opts).retry,
    ).toBe(true);
    expect(
      decideRetry(new BudgetUnavailableError('store_unavailable', 0, 'x'), { failures: 1, throttles: 0 }, opts).retry,
    ).toBe(true);
    expect(decideRetry(new TokensExhaustedError(86400, 'x'), { failures: 1, throttles: 0 }, opts).retry).toBe(false);
  });

  it('never retries 400, invalid_cursor, cursor_filter_mismatch, 422 or unknown errors', () => {
    for (const error of [
      new SourceValidationError('bad', []),
      new InvalidCursorError('x'),
      new CursorFilterMismatchError('x'),
      new PaginationDepthError('x'),
      new Error('boom'),
    ]) {
      expect(decideRetry(error, { failures: 1, throttles: 0 }, opts)).toEqual({ retry: false });
    }
  });

  it(
    'a 429 blocks its operation for every process (capped Retry-After); a 401 refreshes, a third ' + 'surfaces',
    async () => {
      const blocks: [string, number][] = [];
      const decide = sourceDecider('count', opts, { blockOperation: async (op, ms) => void blocks.push([op, ms]) });
      const tally = new AttemptTally();
      expect((await decide(new RateLimitedError(3600, 'search', 'x'), tally)).retry).toBe(true);
      expect(blocks).toEqual([['search', 60_000]]);
      expect(await decide(new AccessTokenRefusedError('401'), tally)).toEqual({
        retry: true,
        kind: 'token_refresh',
        delayMs: 0,
      });
      // A refused token that was not issued for this request (cached, maybe another caller's refresh): refresh again.
      expect((await decide(new AccessTokenRefusedError('401'), tally)).retry).toBe(true);
      const third = await decide(new AccessTokenRefusedError('401'), tally);
      expect(third.retry).toBe(false);
      expect(!third.retry && third.error).toMatchObject({
        code: 'source_unauthorized',
        message: expect.stringMatching(/refused 3 access tokens in a row/),
      });
    },
  );

  it('a 401 on a token issued just before the request surfaces at once', async () => {
    const decide = sourceDecider('search', opts, { blockOperation: async () => undefined });
    const first = await decide(new AccessTokenRefusedError('401', true), new AttemptTally());
    expect(first.retry).toBe(false);
    expect(!first.retry && first.error).toMatchObject({
      code: 'source_unauthorized',
      message: expect.stringMatching(/freshly issued access token/),
    });
  });
});
