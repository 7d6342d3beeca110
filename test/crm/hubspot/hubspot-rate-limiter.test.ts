import { describe, expect, it } from 'vitest';
import { DAILY_PROBE_AFTER_MS, HubSpotRateLimiter } from '../../../src/crm/hubspot/hubspot-rate-limiter.js';

/** A fake clock: sleeping advances time, so waits are measured, not slept. */
function clock() {
  let now = 0;
  return { now: () => now, sleep: (ms: number) => ((now += ms), Promise.resolve()) };
}

const headers = (max: number, remaining: number, dailyRemaining = 1000) => ({
  'x-hubspot-ratelimit-interval-milliseconds': '10000',
  'x-hubspot-ratelimit-max': String(max),
  'x-hubspot-ratelimit-remaining': String(remaining),
  'x-hubspot-ratelimit-daily-remaining': String(dailyRemaining),
});

describe('HubSpot rate limiter', () => {
  it('lets at most perWindow requests into any 10 s window, counting from each answer', async () => {
    const c = clock();
    const limiter = new HubSpotRateLimiter({ perWindow: 5, ...c });
    const starts: number[] = [];
    for (let i = 0; i < 12; i++) {
      await limiter.acquire();
      starts.push(c.now());
      limiter.release(undefined);
    }
    for (let i = 5; i < starts.length; i++) expect(starts[i]! - starts[i - 5]!).toBeGreaterThan(10_000);
    expect(starts.slice(0, 5)).toEqual([0, 0, 0, 0, 0]);
  });

  it('books the share other clients of the same app used (from -Remaining) and obeys a lower -Max', async () => {
    const c = clock();
    const limiter = new HubSpotRateLimiter({ perWindow: 100, ...c });
    await limiter.acquire();
    limiter.release(headers(10, 2)); // the server has seen 8 requests in this window, we sent 1
    await limiter.acquire();
    limiter.release(headers(10, 1));
    await limiter.acquire();
    limiter.release(headers(10, 0));
    const before = c.now();
    await limiter.acquire();
    expect(c.now() - before).toBeGreaterThan(9_000);
  });

  it('after a 429 waits until the oldest request left the window', async () => {
    const c = clock();
    const limiter = new HubSpotRateLimiter({ perWindow: 100, ...c });
    await limiter.acquire();
    limiter.release(undefined);
    limiter.throttled();
    await limiter.acquire();
    expect(c.now()).toBeGreaterThan(10_000);
  });

  it('refuses calls once the daily allowance is used up, and probes again later', async () => {
    const c = clock();
    const limiter = new HubSpotRateLimiter({ perWindow: 100, ...c });
    await limiter.acquire();
    limiter.release(headers(100, 99, 0));
    await expect(limiter.acquire()).rejects.toMatchObject({ code: 'crm_daily_limit' });
    await c.sleep(DAILY_PROBE_AFTER_MS + 1);
    await expect(limiter.acquire()).resolves.toBeUndefined();
  });
});
