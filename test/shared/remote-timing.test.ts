import { describe, expect, it } from 'vitest';
import { sleep } from '../../src/shared/abortable-sleep.js';
import { backoffDelayMs } from '../../src/shared/backoff.js';
import { callWithPolicy } from '../../src/shared/call-with-policy.js';
import { parseRetryAfter, retryAfterDelayMs } from '../../src/shared/retry-after.js';

describe('shared timing', () => {
  it('backoff: exponential ceiling, capped, half jitter (never immediate)', () => {
    const o = { baseDelayMs: 100, maxDelayMs: 1000 };
    expect([1, 2, 3, 4, 5].map((n) => backoffDelayMs(n, o, () => 1))).toEqual([100, 200, 400, 800, 1000]);
    expect([1, 2, 3].map((n) => backoffDelayMs(n, o, () => 0))).toEqual([50, 100, 200]);
    const draws = new Set(Array.from({ length: 20 }, () => backoffDelayMs(3, o)));
    expect(draws.size).toBeGreaterThan(1); // jittered
  });

  it('Retry-After: seconds or HTTP-date, capped, plus bounded jitter', () => {
    const now = Date.parse('2026-11-23T07:00:00Z');
    expect(parseRetryAfter('7', now)).toBe(7);
    expect(parseRetryAfter('Mon, 23 Nov 2026 07:00:30 GMT', now)).toBe(30);
    expect(parseRetryAfter('Mon, 23 Nov 2026 06:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(retryAfterDelayMs(3600, 60, () => 0)).toBe(60_000);
    expect(retryAfterDelayMs(2, 60, () => 1)).toBe(2000 + 300);
    expect(retryAfterDelayMs(120, 60, () => 1)).toBe(61_000);
  });

  it('sleep rejects with the signal reason, at once and when aborted while waiting', async () => {
    const reason = new Error('stop');
    await expect(sleep(10_000, AbortSignal.abort(reason))).rejects.toBe(reason);
    const controller = new AbortController();
    const pending = sleep(10_000, controller.signal);
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
  });

  it(
    'callWithPolicy retries until decide gives up, with per-kind tallies, and surfaces the decided ' + 'error',
    async () => {
      let calls = 0;
      const final = new Error('gave up');
      const result = await callWithPolicy(
        (_e, tally) => (tally.add('x') < 3 ? { retry: true, delayMs: 1, kind: 'x' } : { retry: false, error: final }),
        async () => {
          calls += 1;
          if (calls < 3) throw new Error('flaky');
          return 'ok';
        },
      );
      expect(result).toBe('ok');
      calls = 0;
      await expect(
        callWithPolicy(
          (_e, tally) => (tally.add('x') < 3 ? { retry: true, delayMs: 1, kind: 'x' } : { retry: false, error: final }),
          async () => {
            calls += 1;
            throw new Error('down');
          },
        ),
      ).rejects.toBe(final);
      expect(calls).toBe(3);
    },
  );
});
