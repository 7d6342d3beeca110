/**
 * Tokens taken at send time (issue 34, item 4): the access token is read once the rate-limit slot is granted, so a
 * queue longer than the token's life never sends an expired token. Real emulator (short token lifetime, a small
 * count allowance), real Redis.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { sourceFixture, type SourceFixture } from './source-fixture.js';

let fx: SourceFixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

describe('access token taken at send time', () => {
  it('requests queued behind the rate limit for several token lifetimes all succeed, with no 401', async () => {
    const limits = { search: 500, count: 4, dictionary: 500 };
    fx = await sourceFixture(
      {
        tokenLifetimeSeconds: 2,
        accounts: [{ clientId: 'demo-client', clientSecret: 'demo-secret', accountId: 'demo', limits }],
      },
      { fallbackLimits: { ...limits, windowSeconds: 1 } },
    );
    // 24 counts at 4 per second: the last ones wait ~6 s, three token lifetimes, for their slot.
    const totals = await Promise.all(Array.from({ length: 24 }, () => fx!.client.count('companies', {})));
    expect(new Set(totals)).toEqual(new Set([2000]));
    expect(fx.emu.stats().served401).toBe(0);
    expect(fx.client.stats().unauthorizedRetries).toBe(0);
    // New tokens were taken while the queue drained (none sent within its refresh margin).
    expect(fx.client.stats().requests.token).toBeGreaterThan(1);
  });
});
