import { afterEach, describe, expect, it } from 'vitest';
import { RedisBudgetLedger } from '../../src/source/budget-ledger.js';
import { testRedis } from '../helpers/redis.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

async function ledger(
  reserve: number,
  caps: { maxPerRun?: number; maxPerDay?: number } = {},
): Promise<RedisBudgetLedger> {
  const { redis, prefix, cleanup } = await testRedis('ledger');
  cleanups.push(cleanup);
  return new RedisBudgetLedger(redis, prefix, reserve, caps);
}

const balance = (remaining: number, reset = 3600) => ({
  'x-rate-results-limit': '1000',
  'x-rate-results-limit-remaining': String(remaining),
  'x-rate-results-limit-reset': String(reset),
});

describe('budget ledger: search tokens (real Redis)', () => {
  it('grants everything while the balance is unknown', async () => {
    const l = await ledger(100);
    expect(await l.tokenBalance()).toBeNull();
    expect(await l.reserveTokens(100)).toMatchObject({ granted: 100, available: -1 });
    expect(await l.spendableTokens()).toBe(Number.POSITIVE_INFINITY);
  });

  it('keeps the reserve and counts in-flight reservations', async () => {
    const l = await ledger(50);
    await l.observeTokens(balance(250));
    expect(await l.spendableTokens()).toBe(200);
    const r1 = await l.reserveTokens(100);
    const r2 = await l.reserveTokens(100);
    const r3 = await l.reserveTokens(100);
    expect([r1.granted, r2.granted, r3.granted]).toEqual([100, 100, 0]);
    expect(await l.spendableTokens()).toBe(0);
    await l.releaseTokens(r1.id);
    expect(await l.spendableTokens()).toBe(100);
    await l.releaseTokens(r2.id);
    await l.observeTokens(balance(120));
    expect(await l.spendableTokens()).toBe(70);
    expect((await l.reserveTokens(100)).granted).toBe(70);
  });

  it('never raises the balance within a period from an overtaken answer, but accepts a new period', async () => {
    const l = await ledger(0);
    await l.observeTokens(balance(300, 1));
    await l.observeTokens(balance(400, 1));
    expect((await l.tokenBalance())?.remaining).toBe(300);
    await new Promise((r) => setTimeout(r, 1100));
    await l.observeTokens(balance(1000, 3600));
    expect((await l.tokenBalance())?.remaining).toBe(1000);
  });
});

describe('budget ledger: credits (real Redis)', () => {
  it('sizes reservations to the run and day caps and books what was spent', async () => {
    const l = await ledger(0, { maxPerRun: 150, maxPerDay: 200 });
    const r1 = await l.reserveCredits('run-a', 100);
    expect(r1.granted).toBe(100);
    const r2 = await l.reserveCredits('run-a', 100);
    expect(r2.granted).toBe(50);
    await l.settleCredits('run-a', r1.id, 100);
    await l.settleCredits('run-a', r2.id, 40);
    expect(await l.creditUsage('run-a')).toMatchObject({
      run: 140,
      day: 140,
      account: 140,
      maxPerRun: 150,
      maxPerDay: 200,
    });
    expect(await l.spendableCredits('run-a')).toBe(10);
    // Another run is bounded by the day cap.
    expect(await l.spendableCredits('run-b')).toBe(60);
  });

  it('is unbounded without caps', async () => {
    const l = await ledger(0);
    expect(await l.spendableCredits('r')).toBe(Number.POSITIVE_INFINITY);
    expect((await l.reserveCredits('r', 100)).granted).toBe(100);
  });
});
