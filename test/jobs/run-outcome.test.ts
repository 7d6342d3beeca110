/**
 * How a run ends (jobs/sync-search/run-outcome.ts), end to end against the emulators: caps are stops (spend up to the
 * binding cap, land everything paid for, `partial` with the cap's name), `onShortfall: refuse`, the daily credit cap
 * named as such, and a 402 that stays a delay when the write of the pages fetched before it fails.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { syncSearch } from '../../jobs/sync-search.js';
import { parseConfig } from '../../src/config/index.js';
import { exitCodeOf } from '../../src/runs/run-summary.js';
import { hubspotConfig, startFixture, type Fixture } from './sync-fixture.js';

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

const PEOPLE_FILTER = { company: { headcount: { gte: 1, lte: 1000000 } } };

/** A contacts search over every person, email and phone mapped; `extra` lines are added to the search. */
const contactsSearch = (extra = ''): string => `
  - name: leads
    segment: key-accounts
    entity: persons
    filter:
      company:
        headcount: {gte: 1, lte: 1000000}
    view: [contacts]
${extra}    destination: crm
    object: contacts
    matchOn: {field: prospect_sync_id, from: id}
    fields: {firstname: firstName, email: contacts.email, phone: contacts.phone}
`;

const credits = (perRun: number, perDay: number): string =>
  `  credits: {maxPerRun: ${perRun}, maxPerDay: ${perDay}}\n  pageSize: 40\n  maxJourneyRecords: 300\n  parallelism: 3`;

describe('caps are stops', () => {
  it(
    'a contacts run under a per-run credit cap spends exactly the cap, lands every person paid for with email and ' +
      'phone, ends partial',
    async () => {
      fx = await startFixture('cap-stop', { salesIntel: { persons: 600 } });
      const matching = await fx.oracleIds('persons', PEOPLE_FILTER);
      expect(matching.length).toBeGreaterThan(250);
      const config = fx.config(hubspotConfig(contactsSearch(), credits(250, 10_000)));
      const summary = await syncSearch(fx.deps(config), { search: 'leads', runId: 'cap-1' });
      expect(summary).toMatchObject({
        status: 'partial',
        stopReason: 'credit_cap_run',
        creditsSpent: 250,
        fetched: 250,
      });
      expect(exitCodeOf(summary)).toBe(3);
      expect(fx.si.stats('worker').creditsCharged).toBe(250);
      // every person paid for is in the CRM, with the contact details that were paid for
      const contacts = [...(fx.hubspot!.state.tables.get('contacts')?.objects.values() ?? [])];
      expect(contacts.length).toBe(250);
      for (const c of contacts) {
        expect(c.properties.email).toMatch(/@/);
        expect(c.properties.phone).toMatch(/^\+\d/);
        expect(matching).toContain(c.properties.prospect_sync_id);
      }
      // the capped run's checkpoint is cleared (the next run starts a new walk)
      expect(await fx.redis.exists(`${fx.prefix}:run:leads:checkpoint`)).toBe(0);
    },
  );

  it('the daily credit cap binding is reported as credit_cap_day, by the walk and by a refused plan', async () => {
    fx = await startFixture('cap-day', { salesIntel: { persons: 600 } });
    const stop = fx.config(hubspotConfig(contactsSearch(), credits(500, 200)));
    const stopped = await syncSearch(fx.deps(stop), { search: 'leads', runId: 'day-1' });
    expect(stopped).toMatchObject({ status: 'partial', stopReason: 'credit_cap_day', creditsSpent: 200 });
    expect(fx.si.stats('worker').creditsCharged).toBe(200);
    // the day's cap is spent: a run that must not start short is refused, naming the daily cap
    const refuse = fx.config(hubspotConfig(contactsSearch('    onShortfall: refuse\n'), credits(500, 260)));
    const refused = await syncSearch(fx.deps(refuse), { search: 'leads', runId: 'day-2' });
    expect(refused).toMatchObject({
      status: 'partial',
      stopReason: 'credit_cap_day',
      fetched: 0,
      error: { code: 'budget_insufficient' },
    });
    expect(refused.error?.message).toMatch(/onShortfall/);
    expect(fx.si.stats('worker').creditsCharged).toBe(200);
  });

  it('onShortfall: refuse still refuses a run the credits cannot cover: nothing fetched, nothing spent', async () => {
    fx = await startFixture('cap-refuse', { salesIntel: { persons: 600 } });
    const config = fx.config(hubspotConfig(contactsSearch('    onShortfall: refuse\n'), credits(100, 10_000)));
    const summary = await syncSearch(fx.deps(config), { search: 'leads', runId: 'refuse-1' });
    expect(summary).toMatchObject({
      status: 'partial',
      stopReason: 'credit_cap_run',
      fetched: 0,
      creditsSpent: 0,
      error: { code: 'budget_insufficient' },
    });
    expect(fx.si.stats('worker').operations.search).toBe(0);
    expect(fx.hubspot!.state.count('contacts')).toBe(0);
  });
});

describe('allowPartial (deprecated)', () => {
  it(
    'still loads, with a warning at its line saying what replaces it; the run stops at the cap as by ' + 'default',
    async () => {
      fx = await startFixture('allow-partial', { salesIntel: { persons: 600 } });
      const loaded = parseConfig(
        hubspotConfig(contactsSearch('    allowPartial: true\n'), credits(100, 10_000)),
        'test.yaml',
        fx.env,
      );
      expect(loaded.warnings).toHaveLength(1);
      expect(loaded.warnings[0]).toMatchObject({ path: 'searches[0].allowPartial' });
      expect(loaded.warnings[0]?.message).toMatch(/deprecated.*onShortfall: refuse/);
      expect(loaded.warnings[0]?.line).toBeGreaterThan(0);
      const summary = await syncSearch(fx.deps(loaded.config), { search: 'leads', runId: 'ap-1' });
      expect(summary).toMatchObject({ status: 'partial', stopReason: 'credit_cap_run', creditsSpent: 100 });
    },
  );
});

describe('a 402 while the pages fetched before it fail to write', () => {
  it(
    'stays delayed (not failed), keeps its checkpoint, and the resumed run lands every record exactly ' + 'once',
    async () => {
      fx = await startFixture('exhausted-write', {
        salesIntel: { companies: 300, faults: { latency: { fixedMs: 300, jitterMs: 0 } } },
      });
      const f = fx;
      const filter = { company: { headcount: { gte: 1, lte: 1000000 } } };
      const expected = await f.oracleIds('companies', filter);
      f.si.resetStats();
      // one journey, pages of 50, HubSpot writes of 100: page 1 waits for page 2 before it is written
      const config = f.config(
        hubspotConfig(
          `
  - name: all-companies
    segment: icp
    entity: companies
    filter: {company: {headcount: {gte: 1, lte: 1000000}}}
    destination: crm
    object: companies
    matchOn: {field: prospect_sync_id, from: id}
    fields: {name: name}
`,
          '  pageSize: 50\n  parallelism: 1',
        ),
      );
      const run = syncSearch(f.deps(config), { search: 'all-companies', runId: 'ex-1' });
      // page 1 answered: page 2 is now inside the emulator's latency. It meets an exhausted budget, and the write of
      // page 1 (flushed as the 402 propagates) meets a CRM that keeps failing.
      for (let i = 0; i < 400 && f.si.stats('worker').recordsReturned < 50; i++)
        await new Promise((r) => setTimeout(r, 10));
      expect(f.si.stats('worker').recordsReturned).toBe(50);
      f.si.setTokenBalance('worker', 0, 2);
      f.hubspot!.faults.fail5xxNext = 4;
      const first = await run;
      expect(first).toMatchObject({
        status: 'delayed',
        stopReason: 'tokens_exhausted',
        error: { code: 'tokens_exhausted' },
      });
      expect(f.hubspot!.state.count('companies')).toBe(0);
      expect(await f.redis.exists(`${f.prefix}:run:all-companies:checkpoint`)).toBe(1);
      await new Promise((r) => setTimeout(r, Math.max(0, Date.parse(first.resumeAt ?? '') - Date.now()) + 100));
      f.si.faults.set({ latency: null });
      const second = await syncSearch(f.deps(config), { search: 'all-companies', runId: 'ex-1' });
      expect(second).toMatchObject({ status: 'completed', created: expected.length });
      const landed = [...(f.hubspot!.state.tables.get('companies')?.objects.values() ?? [])]
        .map((o) => o.properties.prospect_sync_id ?? '')
        .sort();
      expect(landed).toEqual(expected);
    },
    30_000,
  );
});
