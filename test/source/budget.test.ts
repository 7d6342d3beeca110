import { afterEach, describe, expect, it } from 'vitest';
import { scanKeys } from '../../src/shared/redis.js';
import { BudgetStopError, RecordQuota } from '../../src/source/index.js';
import { sourceFixture, walkAll, walkUntilStop, type SourceFixture } from './source-fixture.js';

let fx: SourceFixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

describe('search-token budget', () => {
  it('a 250-token allotment stops exactly at zero, sizing the last page', async () => {
    fx = await sourceFixture({
      accounts: [{ clientId: 'demo-client', clientSecret: 'demo-secret', accountId: 'demo', tokenAllotment: 250 }],
    });
    const { pages, error } = await walkUntilStop(fx.client, 'companies', {}, { runId: 'r' });
    expect(pages).toEqual([100, 100, 50]);
    expect(error).toBeInstanceOf(BudgetStopError);
    expect((error as BudgetStopError).cap).toBe('token_reserve');
    expect(fx.emu.stats('demo').tokensCharged).toBe(250);
    expect(fx.emu.stats('demo').served402).toBe(0);
    // The stopped page's governor grant (taken in the reservation's round trip) was given back: only sent requests
    // stay in the search log.
    const [log] = await scanKeys(fx.redis, `${fx.prefix}:gov:source:*:search:log`);
    expect(await fx.redis.zcard(log!)).toBe(3);
  });

  it(
    'never spends below the reserve, probing the unknown balance with a 1-record request apart from the ' + 'journey',
    async () => {
      fx = await sourceFixture(
        {
          accounts: [{ clientId: 'demo-client', clientSecret: 'demo-secret', accountId: 'demo', tokenAllotment: 250 }],
        },
        { tokens: { reserve: 60 } },
      );
      const { pages, error } = await walkUntilStop(fx.client, 'companies', {}, { runId: 'r' });
      // the probe (one token) opens no journey: an API holding a journey to its first limit would serve 1 a page
      expect(pages).toEqual([100, 89]);
      expect(fx.emu.stats('demo').operations.search).toBe(3);
      expect((error as BudgetStopError).cap).toBe('token_reserve');
      expect((await fx.client.ledger.tokenBalance())?.remaining).toBe(60);
      expect(await fx.client.ledger.spendableTokens()).toBe(0);
    },
  );

  it('parallel journeys of two clients together stop at the reserve', async () => {
    fx = await sourceFixture(
      { accounts: [{ clientId: 'demo-client', clientSecret: 'demo-secret', accountId: 'demo', tokenAllotment: 1000 }] },
      { tokens: { reserve: 100 } },
    );
    const other = fx.newClient();
    const results = await Promise.all([
      walkUntilStop(fx.client, 'companies', { company: { headcount: { lte: 50 } } }, { runId: 'a', pageSize: 30 }),
      walkUntilStop(other, 'companies', { company: { headcount: { gte: 51 } } }, { runId: 'b', pageSize: 30 }),
    ]);
    // Which walk meets the reserve first is a race; together they stop there, whichever it is.
    expect(results.some((r) => r.error instanceof BudgetStopError)).toBe(true);
    expect(fx.emu.stats('demo').tokensCharged).toBe(900);
  });

  it('maxRecords sizes the last page', async () => {
    fx = await sourceFixture();
    const records = await walkAll(fx.client, 'companies', {}, { runId: 'r', maxRecords: 230, pageSize: 100 });
    expect(records).toHaveLength(230);
    expect(fx.emu.stats('demo').tokensCharged).toBe(230);
  });
});

describe('credits (view=contacts)', () => {
  it('sizes pages to the per-run cap and stops exactly at it; the day cap binds across runs', async () => {
    fx = await sourceFixture({}, { credits: { maxPerRun: 130, maxPerDay: 200 } });
    const run1 = await walkUntilStop(fx.client, 'persons', {}, { runId: 'run-1', view: ['contacts'], pageSize: 100 });
    expect(run1.pages).toEqual([100, 30]);
    expect((run1.error as BudgetStopError).cap).toBe('credit_cap_run');
    const run2 = await walkUntilStop(fx.client, 'persons', {}, { runId: 'run-2', view: ['contacts'], pageSize: 100 });
    expect(run2.pages).toEqual([70]);
    expect((run2.error as BudgetStopError).cap).toBe('credit_cap_day');
    expect(fx.emu.stats('demo').creditsCharged).toBe(200);
    expect(fx.client.stats().creditsSpent).toBe(200);
    expect(await fx.client.ledger.creditUsage('run-1')).toMatchObject({ run: 130, day: 200, account: 200 });
    // Without contacts no credits are needed.
    const plain = await walkAll(fx.client, 'persons', {}, { runId: 'run-3', view: ['demographics'], maxRecords: 150 });
    expect(plain).toHaveLength(150);
    expect(fx.emu.stats('demo').creditsCharged).toBe(200);
  });
});

describe('a record cap shared by parallel journeys of one run', () => {
  it('stops the partitions together exactly at the cap', async () => {
    fx = await sourceFixture();
    const quota = new RecordQuota(437);
    const filters = [
      { company: { headcount: { lte: 30 } } },
      { company: { headcount: { gte: 31, lte: 900 } } },
      { company: { headcount: { gte: 901 } } },
    ];
    const results = await Promise.all(
      filters.map((f, i) =>
        walkUntilStop(fx!.client, 'companies', f, {
          runId: 'capped',
          pageSize: 40,
          quota,
          maxRecords: i === 0 ? 1000 : undefined,
        }),
      ),
    );
    const total = results.flatMap((r) => r.pages).reduce((a, b) => a + b, 0);
    expect(total).toBe(437);
    expect(quota.kept).toBe(437);
    expect(fx.emu.stats('demo').tokensCharged).toBe(437);
    for (const r of results) if (r.error !== undefined) expect((r.error as BudgetStopError).cap).toBe('max_records');
  });
});
