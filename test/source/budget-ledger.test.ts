import { afterEach, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { budgetIndexKey, RedisBudgetLedger } from '../../src/source/budget-ledger.js';
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

/** A ledger where createSourceClient places one (`<prefix>:source:<account>`), with its Redis to look at. */
async function accountLedger(
  reserve = 0,
  caps: { maxPerRun?: number; maxPerDay?: number } = {},
): Promise<{ l: RedisBudgetLedger; redis: Redis; prefix: string; base: string }> {
  const { redis, prefix, cleanup } = await testRedis('ledger');
  cleanups.push(cleanup);
  const base = `${prefix}:source:acct-1`;
  return { l: new RedisBudgetLedger(redis, base, reserve, caps), redis, prefix, base };
}

const today = (): string => new Date().toISOString().slice(0, 10);

describe('budget ledger: what it reads from an answer and keeps (real Redis)', () => {
  it('records the limit, remaining and reset of an answer; without a remaining figure nothing', async () => {
    const { l, redis, prefix } = await accountLedger(7);
    expect(l.reserve).toBe(7);
    await l.observeTokens({ 'x-rate-results-limit': '1000' });
    await l.observeTokens({ 'x-rate-results-limit-remaining': 'many', 'x-rate-results-limit': '1000' });
    expect(await l.tokenBalance()).toBeNull();
    expect(await redis.smembers(budgetIndexKey(prefix))).toEqual([]);
    const before = Date.now();
    await l.observeTokens({ ...balance(640, 600), 'x-rate-results-limit-remaining': ['640', '999'] });
    const seen = await l.tokenBalance();
    expect(seen).toMatchObject({ limit: 1000, remaining: 640 });
    expect(seen?.resetAt).toBeGreaterThanOrEqual(before + 600_000 - 1_000);
    expect(seen?.resetAt).toBeLessThanOrEqual(Date.now() + 600_000 + 1_000);
    expect(seen?.observedAt).toBeGreaterThanOrEqual(before - 1_000);
    expect(seen?.observedAt).toBeLessThanOrEqual(Date.now() + 1_000);
    // the account is listed for /metrics and the alerts
    expect(await redis.smembers(budgetIndexKey(prefix))).toEqual(['acct-1']);
  });

  it('an answer without a limit or reset still records its balance (limit unknown, period ending now)', async () => {
    const { l } = await accountLedger();
    const before = Date.now();
    await l.observeTokens({ 'x-rate-results-limit-remaining': '30' });
    const seen = await l.tokenBalance();
    expect(seen).toMatchObject({ limit: -1, remaining: 30 });
    expect(seen?.resetAt).toBeLessThanOrEqual(Date.now() + 1_000);
    expect(seen?.resetAt).toBeGreaterThanOrEqual(before - 1_000);
  });

  it('a ledger outside an account (no :source: in its key) keeps no index', async () => {
    const { redis, prefix, cleanup } = await testRedis('ledger');
    cleanups.push(cleanup);
    const l = new RedisBudgetLedger(redis, `${prefix}:elsewhere`, 0, { maxPerRun: 10 });
    await l.observeTokens(balance(100));
    await l.settleCredits('r', (await l.reserveCredits('r', 5)).id, 5);
    expect(await redis.keys(`${prefix}:index:*`)).toEqual([]);
    expect((await l.tokenBalance())?.remaining).toBe(100);
  });

  it('says which tokens other pages hold; a reserve above the balance leaves nothing, not less', async () => {
    const { l } = await accountLedger(50);
    await l.observeTokens(balance(300));
    const first = await l.reserveTokens(120);
    expect(first).toMatchObject({ granted: 120, available: 250, held: 0 });
    expect(first.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await l.reserveTokens(100)).toMatchObject({ granted: 100, available: 130, held: 120 });
    await l.observeTokens(balance(20));
    expect(await l.spendableTokens()).toBe(0);
  });

  it('a reservation holds for 15 minutes (longer than a request with all its retries), then expires', async () => {
    const { l, redis, base } = await accountLedger();
    await l.observeTokens(balance(300));
    const before = Date.now();
    const { id } = await l.reserveTokens(100);
    const expires = Number(await redis.zscore(`${base}:tokens:resv:exp`, id));
    expect(expires - before).toBeGreaterThan(15 * 60_000 - 2_000);
    expect(expires - before).toBeLessThan(15 * 60_000 + 2_000);
    const credits = await accountLedger(0, { maxPerRun: 10 });
    const c = await credits.l.reserveCredits('r', 5);
    const creditExpires = Number(await credits.redis.zscore(`${credits.base}:credits:resv:exp`, c.id));
    expect(creditExpires - before).toBeGreaterThan(15 * 60_000 - 2_000);
    expect(creditExpires - before).toBeLessThan(15 * 60_000 + 2_000);
  });

  it("the batched forms do what the direct ones do, in the caller's round trip", async () => {
    const { l, redis } = await accountLedger(10);
    const observe = redis.multi();
    l.observeTokensInto(observe, balance(110));
    l.observeTokensInto(observe, { 'x-rate-results-limit': '5' });
    await observe.exec();
    expect((await l.tokenBalance())?.remaining).toBe(110);
    const batch = redis.multi();
    const first = l.reserveTokensInto(batch, 60);
    const second = l.reserveTokensInto(batch, 60);
    const replies = (await batch.exec()) ?? [];
    const a = first.read(replies[0]?.[1]);
    const b = second.read(replies[1]?.[1]);
    expect(a).toMatchObject({ granted: 60, available: 100, held: 0 });
    expect(b).toMatchObject({ granted: 40, available: 40, held: 60 });
    expect(a.id).not.toBe(b.id);
    const release = redis.multi();
    l.releaseTokensInto(release, a.id);
    await release.exec();
    expect(await l.spendableTokens()).toBe(60);
  });

  it('a debit lowers the known balance by what an unanswered search may have cost', async () => {
    const { l } = await accountLedger();
    await l.observeTokens(balance(100));
    await l.debitTokens(30);
    expect((await l.tokenBalance())?.remaining).toBe(70);
    await l.debitTokens(0);
    expect((await l.tokenBalance())?.remaining).toBe(70);
  });
});

describe('budget ledger: credit books (real Redis)', () => {
  it('books spent credits per run (14 days), per UTC day (3 days) and in total, and lists the account', async () => {
    const { l, redis, prefix, base } = await accountLedger(0, { maxPerRun: 100 });
    const r = await l.reserveCredits('run-a', 30);
    await l.settleCredits('run-a', r.id, 0);
    expect(await redis.smembers(budgetIndexKey(prefix))).toEqual([]);
    expect(await l.creditUsage('run-a')).toEqual({ run: 0, day: 0, account: 0, maxPerRun: 100, maxPerDay: null });
    const r2 = await l.reserveCredits('run-a', 30);
    await l.settleCredits('run-a', r2.id, 25);
    expect(await l.creditUsage('run-a')).toEqual({ run: 25, day: 25, account: 25, maxPerRun: 100, maxPerDay: null });
    expect(await l.creditUsage('run-b')).toMatchObject({ run: 0, day: 25, account: 25 });
    const runTtl = await redis.ttl(`${base}:credits:run:run-a`);
    const dayTtl = await redis.ttl(`${base}:credits:day:${today()}`);
    expect(runTtl).toBeGreaterThan(14 * 86_400 - 60);
    expect(runTtl).toBeLessThanOrEqual(14 * 86_400);
    expect(dayTtl).toBeGreaterThan(3 * 86_400 - 60);
    expect(dayTtl).toBeLessThanOrEqual(3 * 86_400);
    expect(await redis.smembers(budgetIndexKey(prefix))).toEqual(['acct-1']);
    // settled reservations hold nothing any more
    expect(await l.spendableCredits('run-a')).toBe(75);
  });

  it('names the cap that binds: the smaller remaining of run and day (run on ties), what is in flight', async () => {
    const both = await accountLedger(0, { maxPerRun: 100, maxPerDay: 100 });
    expect(await both.l.creditHeadroom('r')).toEqual({ spendable: 100, binding: 'credit_cap_run' });
    const held = await both.l.reserveCredits('r', 30);
    expect(held).toMatchObject({ granted: 30, binding: 'credit_cap_run', held: 0 });
    // another run: its own cap has 100 left, the day 70 (30 in flight)
    expect(await both.l.reserveCredits('other', 80)).toMatchObject({
      granted: 70,
      binding: 'credit_cap_day',
      held: 30,
    });
    const day = await accountLedger(0, { maxPerDay: 40 });
    expect(await day.l.creditHeadroom('r')).toEqual({ spendable: 40, binding: 'credit_cap_day' });
    expect(await day.l.creditUsage('r')).toMatchObject({ maxPerRun: null, maxPerDay: 40 });
    expect(await day.l.creditHeadroom('r')).toEqual({ spendable: 40, binding: 'credit_cap_day' });
    const none = await accountLedger();
    expect(await none.l.creditHeadroom('r')).toEqual({ spendable: Number.POSITIVE_INFINITY, binding: null });
    expect(await none.l.reserveCredits('r', 5)).toMatchObject({ granted: 5, binding: null, held: 0 });
  });
});
