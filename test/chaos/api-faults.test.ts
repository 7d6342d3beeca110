/**
 * Chaos: every Sales-Intelligence API fault at once during one run: 5% 5xx, forced 429s, token expiry mid-journey,
 * invalid_cursor, live-index churn, rate-limit headers missing for a while, a 402 stale_reset and a 402
 * store_unavailable. The run completes; HubSpot holds every record it could see, once, with its values. Churn makes
 * one walk skip a record per removal behind its cursor (docs/source-client.md "Live index"): the next run, with the
 * index settled, catches those, and then the CRM holds exactly the dataset (plus records removed after they landed:
 * a mirror never deletes).
 */
import { describe, expect, it } from 'vitest';
import { syncSearch } from '../../jobs/sync-search.js';
import { closeAfterEach } from '../helpers/closers.js';
import { diffCrmState, expectedRows, hubspotRows } from '../helpers/crm-state.js';
import { waitFor } from '../helpers/worker-process.js';
import { COMPANY_FILTER, COMPANY_SEARCH, hubspotConfig, startFixture, WORKER_ACCOUNT } from '../jobs/sync-fixture.js';

const FIELDS = { name: 'name', domain: 'domain', numberofemployees: 'headcount' };

describe('chaos: every API fault at once', () => {
  const closers = closeAfterEach();

  it('a run under every API fault completes; with the next run the CRM state is exact', async () => {
    // A short rate window so forced 429s (Retry-After up to the window) cost seconds, not a minute.
    const fx = await startFixture('chaos-api', {
      salesIntel: {
        companies: 2_000,
        persons: 10,
        windowSeconds: 2,
        faults: { latency: { fixedMs: 20, jitterMs: 0 } },
      },
    });
    closers.push(() => fx.close());
    const before = await fx.oracleRecords('companies', COMPANY_FILTER);
    fx.si.resetStats();
    const config = fx.config(hubspotConfig(COMPANY_SEARCH, '  pageSize: 25\n  parallelism: 2'));
    const stats = () => fx.si.stats(WORKER_ACCOUNT.accountId);
    const total = before.length;

    fx.si.faults.set({ serverErrors: { share: 0.05 }, churn: { insertPerPage: 1, removePerPage: 1 } });
    // The other faults fire at milestones of the run (records served), each once, while the run goes on.
    let stop = false;
    const served402 = async (mode: 'stale_reset' | 'store_unavailable'): Promise<void> => {
      const seen = stats().served402;
      fx.si.faults.set({ budgetMode: { [WORKER_ACCOUNT.accountId]: mode } });
      // one refused call, then the budget store is back (the client's backoff retries it)
      await waitFor(async () => (stats().served402 > seen || stop ? true : undefined), 30_000, `a 402 ${mode}`);
      fx.si.faults.set({ budgetMode: { [WORKER_ACCOUNT.accountId]: 'normal' } });
    };
    const at = (share: number) =>
      waitFor(
        async () => (stats().recordsReturned >= share * total || stop ? true : undefined),
        60_000,
        `${share} of the records`,
      );
    const driver = (async () => {
      await at(0.1);
      fx.si.faults.set({ force429: 3 });
      await at(0.2);
      fx.si.faults.set({ expireTokensAfter: 4 });
      await at(0.3);
      fx.si.faults.set({ forceInvalidCursor: 1 });
      await at(0.4);
      fx.si.faults.set({ limiterDown: true });
      await at(0.5);
      await served402('stale_reset');
      await at(0.6);
      fx.si.faults.set({ limiterDown: false });
      await served402('store_unavailable');
      await at(0.7);
      fx.si.faults.set({ force429: 2, expireTokensAfter: 3 });
    })();

    let first;
    try {
      first = await syncSearch(fx.deps(config), { search: 'all-companies', runId: 'chaos-api-1' });
    } finally {
      stop = true;
    }
    await driver;
    const s = fx.si.stats(); // summed: a 401 names no account
    console.log(
      '[chaos api] served',
      JSON.stringify({
        s5xx: s.served5xx,
        s429: s.served429,
        s401: s.served401,
        s400: s.served400,
        s402: s.served402,
        tokens: s.tokensCharged,
        records: total,
      }),
    );
    const churn = fx.si.faults.churnLog();
    fx.si.faults.clear();
    // every fault did happen
    expect(s.served5xx).toBeGreaterThan(0);
    expect(s.served429.search).toBeGreaterThanOrEqual(3);
    expect(s.served401).toBeGreaterThanOrEqual(2);
    expect(s.served400).toBeGreaterThanOrEqual(1);
    expect(s.served402).toBeGreaterThanOrEqual(2); // one of each mode (two journeys may both meet one)
    expect(churn.removed.length).toBeGreaterThan(0);
    expect(churn.inserted.length).toBeGreaterThan(0);
    expect(first).toMatchObject({ status: 'completed', rejected: 0 });

    // The dataset now (churn settled) plus what was there before: the records that may be in the CRM.
    const after = await fx.oracleRecords('companies', COMPANY_FILTER);
    const removed = new Set(churn.removed);
    const expected = expectedRows([...before, ...after], 'id', FIELDS);
    const rows = () => hubspotRows(fx.hubspot!, 'companies', 'prospect_sync_id', Object.keys(FIELDS));
    const d1 = diffCrmState(rows(), expected);
    expect({ extra: d1.extra, duplicates: d1.duplicates, wrong: d1.wrong }).toEqual({
      extra: [],
      duplicates: [],
      wrong: [],
    });
    // one walk misses at most one record per removal behind its cursor
    expect(d1.missing.length).toBeLessThanOrEqual(churn.removed.length);

    const second = await syncSearch(fx.deps(config), { search: 'all-companies', runId: 'chaos-api-2' });
    expect(second).toMatchObject({ status: 'completed', rejected: 0 });
    const d2 = diffCrmState(rows(), expected);
    expect({ extra: d2.extra, duplicates: d2.duplicates, wrong: d2.wrong }).toEqual({
      extra: [],
      duplicates: [],
      wrong: [],
    });
    // missing now: only records removed from the index before any run could see them
    expect(d2.missing.filter((id) => !removed.has(id))).toEqual([]);
    expect(new Set(rows().map((r) => r.key)).size).toBeGreaterThanOrEqual(after.length);
  }, 180_000);
});
