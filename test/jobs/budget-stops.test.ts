import { afterEach, describe, expect, it } from 'vitest';
import { syncSearch } from '../../jobs/sync-search.js';
import { exitCodeOf, type RunSummary } from '../../src/runs/run-summary.js';
import {
  COMPANY_FILTER,
  COMPANY_SEARCH,
  hubspotConfig,
  hubspotValues,
  startFixture,
  type Fixture,
} from './sync-fixture.js';

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

describe('budget stops', () => {
  it(
    'exhausted search tokens mid-run: delayed until the reset, then resumes from the checkpoint with nothing lost ' +
      'or doubled',
    async () => {
      fx = await startFixture('budget-402', { account: { tokenAllotment: 130, tokenPeriodSeconds: 2 } });
      const config = fx.config(hubspotConfig(COMPANY_SEARCH));
      const expected = await fx.oracleIds('companies', COMPANY_FILTER);
      const runs: RunSummary[] = [];
      for (let attempt = 0; attempt < 12; attempt++) {
        const summary = await syncSearch(fx.deps(config), { search: 'all-companies', runId: 'run-402' });
        runs.push(summary);
        if (summary.status !== 'delayed') break;
        expect(summary.stopReason).toBe('tokens_exhausted');
        const resumeAt = Date.parse(summary.resumeAt ?? '');
        expect(resumeAt).toBeGreaterThan(Date.now() - 3000);
        expect(resumeAt).toBeLessThan(Date.now() + 3000);
        await new Promise((r) => setTimeout(r, Math.max(0, resumeAt - Date.now()) + 50));
      }
      const last = runs.at(-1)!;
      expect(runs.length).toBeGreaterThan(2);
      expect(runs[0]!.status).toBe('delayed');
      expect(last).toMatchObject({ status: 'completed', created: expected.length, counted: expected.length });
      // every record exactly once in the CRM
      const landed = hubspotValues(fx.hubspot!, 'companies', 'prospect_sync_id');
      expect(landed).toEqual(expected);
      // counters accumulate across the resumed attempts and agree with what the API charged
      const charged = fx.si.stats('worker').tokensCharged;
      expect(last.tokensSpent).toBe(charged);
      expect(last.requests.search).toBe(fx.si.stats('worker').operations.search);
      expect(last.requests.count).toBe(fx.si.stats('worker').operations.count);
      // resuming re-spends nothing here (each stop came after an accepted batch): at most one page per journey per stop
      expect(charged - expected.length).toBeLessThanOrEqual((runs.length - 1) * last.partitions * 50);
    },
  );

  it(
    "maxRecords below the count: exactly maxRecords fetched and written, completed (the user's limit), exit " + '0',
    async () => {
      fx = await startFixture('budget-max');
      const config = fx.config(
        hubspotConfig(COMPANY_SEARCH.replace('    destination: crm', '    maxRecords: 120\n    destination: crm')),
      );
      const summary = await syncSearch(fx.deps(config), { search: 'all-companies', runId: 'max-1' });
      expect(summary).toMatchObject({
        status: 'completed',
        limitedBy: 'max_records',
        fetched: 120,
        unique: 120,
        created: 120,
      });
      expect(summary.stopReason).toBeUndefined();
      expect(exitCodeOf(summary)).toBe(0);
      expect(fx.si.stats('worker').tokensCharged).toBe(120);
      expect(fx.hubspot!.state.count('companies')).toBe(120);
    },
  );

  it('maxRecords with partitions walked in parallel: one shared cap, exact', async () => {
    fx = await startFixture('budget-max-parallel');
    // small journeys force partitioning, so several journeys run at once against the one cap
    const config = fx.config(
      hubspotConfig(
        COMPANY_SEARCH.replace('    destination: crm', '    maxRecords: 250\n    destination: crm'),
        '  maxJourneyRecords: 100\n  parallelism: 4',
      ),
    );
    const summary = await syncSearch(fx.deps(config), { search: 'all-companies', runId: 'maxp-1' });
    expect(summary.partitions).toBeGreaterThan(2);
    expect(summary).toMatchObject({
      status: 'completed',
      limitedBy: 'max_records',
      fetched: 250,
      unique: 250,
      created: 250,
    });
    expect(fx.si.stats('worker').tokensCharged).toBe(250);
    expect(fx.hubspot!.state.count('companies')).toBe(250);
  });

  it(
    'maxRecords counts distinct records: a live index repeating records still lands maxRecords ' + 'companies',
    async () => {
      fx = await startFixture('budget-max-churn', { salesIntel: { companies: 3_000, persons: 10 } });
      // records appear behind each journey's cursor between pages: the next page repeats records already walked
      fx.si.faults.set({ churn: { insertPerPage: 20, removePerPage: 0 } });
      const config = fx.config(
        hubspotConfig(
          COMPANY_SEARCH.replace('    destination: crm', '    maxRecords: 200\n    destination: crm'),
          '  parallelism: 2',
        ),
      );
      const summary = await syncSearch(fx.deps(config), { search: 'all-companies', runId: 'max-churn' });
      expect(fx.si.faults.churnLog().inserted.length).toBeGreaterThan(0);
      expect(summary).toMatchObject({ status: 'completed', limitedBy: 'max_records', unique: 200, created: 200 });
      expect(exitCodeOf(summary)).toBe(0);
      // the repeats were paid for (tokens above the limit), and the CRM holds exactly the limit, each company once
      expect(summary.fetched).toBeGreaterThan(200);
      expect(fx.si.stats('worker').tokensCharged).toBe(summary.fetched);
      expect(fx.hubspot!.state.count('companies')).toBe(200);
      expect(new Set(hubspotValues(fx.hubspot!, 'companies', 'prospect_sync_id')).size).toBe(200);
    },
  );

  // An API may hold a cursor journey to the `limit` it opened with (the emulator's default, `keepJourneyLimit`):
  // a smaller last page is served whole, so a capped walk must end its pages at the cap without shrinking one.
  it.each([
    ['one journey', '  parallelism: 1'],
    ['partitions in parallel', '  maxJourneyRecords: 150\n  parallelism: 4'],
  ])('maxRecords pays what it lands when the API keeps a journey page size, with churn (%s)', async (_, source) => {
    fx = await startFixture('budget-max-held', { salesIntel: { companies: 3_000, persons: 10 } });
    expect(fx.si.faults.current().keepJourneyLimit).toBe(true);
    fx.si.faults.set({ churn: { insertPerPage: 1, removePerPage: 1 } });
    const max = 437;
    const config = fx.config(
      hubspotConfig(
        COMPANY_SEARCH.replace('    destination: crm', `    maxRecords: ${max}\n    destination: crm`),
        source,
      ),
    );
    const summary = await syncSearch(fx.deps(config), { search: 'all-companies', runId: 'max-held' });
    expect(summary).toMatchObject({ status: 'completed', limitedBy: 'max_records', unique: max, created: max });
    if (source.includes('maxJourneyRecords')) expect(summary.partitions).toBeGreaterThan(2);
    const charged = fx.si.stats('worker').tokensCharged;
    expect(charged).toBe(summary.fetched);
    // what the live index repeated is paid for; beyond it, at most 2% over the cap
    expect(charged).toBeLessThanOrEqual(Math.floor(1.02 * max) + fx.si.faults.churnLog().inserted.length);
    expect(new Set(hubspotValues(fx.hubspot!, 'companies', 'prospect_sync_id')).size).toBe(max);
  });

  it(
    'token reserve: never spends the balance below it (partial), and refuses to start a run it cannot ' + 'cover',
    async () => {
      fx = await startFixture('budget-reserve', { account: { tokenAllotment: 260, tokenPeriodSeconds: 3600 } });
      const config = fx.config(hubspotConfig(COMPANY_SEARCH, '  tokens: {reserve: 100}\n  parallelism: 1'));
      const first = await syncSearch(fx.deps(config), { search: 'all-companies', runId: 'res-1' });
      expect(first).toMatchObject({ status: 'partial', stopReason: 'token_reserve' });
      const charged = fx.si.stats('worker').tokensCharged;
      // the first page (50) is sized before the balance is known; after that never below the reserve
      expect(260 - charged).toBeGreaterThanOrEqual(100);
      expect(fx.hubspot!.state.count('companies')).toBe(first.unique);
      // now the balance is known and too small: refused before any search
      const second = await syncSearch(fx.deps(config), { search: 'all-companies', runId: 'res-2' });
      expect(second).toMatchObject({ status: 'partial', stopReason: 'token_reserve', fetched: 0 });
      expect(['budget_insufficient', 'budget_cap_reached']).toContain(second.error?.code);
      expect(fx.si.stats('worker').tokensCharged).toBe(charged);
    },
  );
});
