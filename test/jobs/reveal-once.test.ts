/**
 * Contacts revealed once, end to end: the real worker run against the Sales-Intelligence emulator (credits counted
 * by the emulator), real Redis, the HubSpot emulator driven by the real @hubspot/api-client.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { syncSearch } from '../../jobs/sync-search.js';
import { planRun, type RunPlan } from '../../jobs/sync-search/plan-run.js';
import { resolveSearch } from '../../jobs/sync-search/resolve-search.js';
import { openSource } from '../../jobs/sync-search/open-source.js';
import { silentLogger } from '../../src/shared/logger.js';
import { hubspotConfig, startFixture, type Fixture } from './sync-fixture.js';

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

const FILTER = { company: { headcount: { gte: 1 } } };

function contactsSearch(extra = '', filter = '{company: {headcount: {gte: 1}}}'): string {
  return `
  - name: people
    segment: key-accounts
    entity: persons
    filter: ${filter}
    view: [contacts]
    destination: crm
    object: contacts
    matchOn: {field: prospect_sync_id, from: id}
    fields: {firstname: firstName, phone: contacts.phone, mobilephone: contacts.mobile}${extra}
`;
}

/** Contacts in the HubSpot emulator by match key -> phone ('' when none). (HubSpot's `email` is unique and the
 * synthetic data repeats a few emails, so the contact fields mapped here are phone and mobile.) */
function phones(f: Fixture): Map<string, string> {
  const table = f.hubspot!.state.tables.get('contacts');
  return new Map(
    [...(table?.objects.values() ?? [])].map((o) => [o.properties.prospect_sync_id ?? '', o.properties.phone ?? '']),
  );
}

async function start(
  label: string,
  extraSource = '  credits: {maxPerRun: 100000, maxPerDay: 1000000}',
  searchExtra = '',
  filter?: string,
): Promise<{ f: Fixture; config: ReturnType<Fixture['config']> }> {
  // every 20th person slot hidden: room to insert 2% new persons between runs
  const f = await startFixture(label, { salesIntel: { persons: 1_200, personReserveEvery: 20 } });
  fx = f;
  return { f, config: f.config(hubspotConfig(contactsSearch(searchExtra, filter), extraSource)) };
}

describe('contacts revealed once', () => {
  it(
    'a re-run with 2% new persons pays credits only for them; everyone keeps phone and mobile in the ' + 'CRM',
    async () => {
      const { f, config } = await start('reveal-rerun');
      const all = await f.oracleIds('persons', FILTER);
      const first = await syncSearch(f.deps(config), { search: 'people', runId: 'r1' });
      expect(first).toMatchObject({
        status: 'completed',
        created: all.length,
        creditsSpent: all.length,
        personsRevealed: all.length,
        revealSkipped: 0,
      });
      // a first run reveals whole pages directly: tokens paid once
      expect(f.si.stats('worker').tokensCharged).toBe(all.length);
      expect([...phones(f).values()].every((e) => e.startsWith('+'))).toBe(true);

      const inserted = f.si.insertPersons(Math.round(all.length * 0.02), FILTER);
      expect(inserted.length).toBe(24);
      f.si.resetStats();
      let plan: RunPlan | undefined;
      const second = await syncSearch(f.deps(config), { search: 'people', runId: 'r2', onPlan: (p) => (plan = p) });
      const charged = f.si.stats('worker');
      expect(second).toMatchObject({
        status: 'completed',
        personsRevealed: inserted.length,
        revealSkipped: all.length,
        created: inserted.length,
        updated: 0,
        unchanged: all.length,
      });
      // no churn: exactly the new persons are paid for (slack 0; the goal allows 5%)
      expect(charged.creditsCharged).toBe(inserted.length);
      expect(second.creditsSpent).toBe(charged.creditsCharged);
      expect(second.tokensSpent).toBe(charged.tokensCharged);
      expect(plan?.forecastCredits).toBe(inserted.length);
      expect(plan?.forecastMethod).toBe('last-run-tally');
      // tokens: one walk plus one per new person (each run of them revealed by its offset in the walk), as forecast
      expect(charged.tokensCharged).toBe(all.length + 2 * inserted.length);
      expect(plan?.forecastTokens).toBe(charged.tokensCharged);
      expect(second.tokensSpentPerRecord).toBeCloseTo(charged.tokensCharged / (all.length + inserted.length), 2);
      const byKey = phones(f);
      expect(byKey.size).toBe(all.length + inserted.length);
      for (const id of [...all, ...inserted]) expect(byKey.get(id)).toMatch(/^\+/);
      const mobiles = [...(f.hubspot!.state.tables.get('contacts')?.objects.values() ?? [])].map(
        (o) => o.properties.mobilephone ?? '',
      );
      expect(mobiles.every((p) => p.startsWith('+'))).toBe(true);

      // a third run: nothing new, nothing paid, nothing re-sent to the CRM (no thrash with/without contacts)
      f.si.resetStats();
      const third = await syncSearch(f.deps(config), { search: 'people', runId: 'r3' });
      expect(f.si.stats('worker').creditsCharged).toBe(0);
      expect(third).toMatchObject({
        status: 'completed',
        created: 0,
        updated: 0,
        unchanged: all.length + inserted.length,
        creditsSpent: 0,
      });
    },
  );

  it('a dry run pays no credit and leaves the planner as it found it: each run pays what plan forecast', async () => {
    const { f, config } = await start('reveal-dry');
    const all = await f.oracleIds('persons', FILTER);
    /** `plan` as the command makes it (its own client), then the run; what the API charged for the run. */
    const planThenRun = async (runId: string, dryRun = false) => {
      const source = openSource(config, f.redis, f.prefix, silentLogger);
      const plan = await planRun(source, config, resolveSearch(config, 'people'), { runId: `${runId}-plan` }).finally(
        () => source.close(),
      );
      f.si.resetStats();
      const summary = await syncSearch(f.deps(config), { search: 'people', runId, dryRun });
      return { plan, summary, charged: f.si.stats('worker') };
    };
    const within1pct = (forecast: number, actual: number): void =>
      expect(Math.abs(forecast - actual)).toBeLessThanOrEqual(actual * 0.01);

    // The dry run: tokens for its walk, no credit; what a real run would reveal comes from the reveal store.
    const dry = await planThenRun('d1', true);
    expect(dry.charged.creditsCharged).toBe(0);
    expect(dry.charged.tokensCharged).toBe(all.length);
    expect(dry.summary).toMatchObject({ status: 'completed', dryRun: true, creditsSpent: 0, created: all.length });
    expect(dry.summary.personsRevealed).toBeUndefined();
    // its pages lack contacts by design: no warning about the mapped contact fields being absent
    expect(dry.summary.warnings).toBeUndefined();
    expect(dry.summary.revealForecast).toEqual({ credits: all.length, revealSkipped: 0, from: 'reveal-store' });
    expect(phones(f).size).toBe(0);

    // The first real run after it: every credit once, one token per person, as forecast (a first run).
    const first = await planThenRun('r1');
    expect(first.plan.forecastMethod).toBe('first-run');
    expect(first.charged.creditsCharged).toBe(all.length);
    expect(first.charged.tokensCharged).toBeLessThanOrEqual(all.length * 1.02);
    within1pct(first.plan.forecastCredits, first.charged.creditsCharged);
    within1pct(first.plan.forecastTokens, first.charged.tokensCharged);
    expect(first.summary).toMatchObject({ personsRevealed: all.length, revealSkipped: 0, created: all.length });
    expect([...phones(f).values()].every((p) => p.startsWith('+'))).toBe(true);

    // 10% new persons: a dry run forecasts exactly them, and the real run after it pays what plan forecast.
    const inserted = f.si.insertPersons(Math.round(all.length * 0.1), FILTER);
    const dry2 = await planThenRun('d2', true);
    expect(dry2.charged.creditsCharged).toBe(0);
    expect(dry2.summary.revealForecast).toEqual({
      credits: inserted.length,
      revealSkipped: all.length,
      from: 'reveal-store',
    });
    const second = await planThenRun('r2');
    expect(second.plan.forecastMethod).toBe('last-run-tally');
    expect(second.charged.creditsCharged).toBe(inserted.length);
    within1pct(second.plan.forecastCredits, second.charged.creditsCharged);
    within1pct(second.plan.forecastTokens, second.charged.tokensCharged);
    expect(second.summary).toMatchObject({ personsRevealed: inserted.length, created: inserted.length });
  });

  it(
    'reveals the CRM never took are not counted as made: the next run is forecast and paid as a first ' + 'run',
    async () => {
      const { f, config } = await start('reveal-unlanded');
      const all = await f.oracleIds('persons', FILTER);
      // The CRM refuses every write (the token lacks the scope): the run pays for pages that never land.
      f.hubspot!.faults.missingScopes.add('crm.objects.contacts.write');
      const failed = await syncSearch(f.deps(config), { search: 'people', runId: 'u1' });
      expect(failed.status).toBe('failed');
      expect(f.si.stats('worker').creditsCharged).toBeGreaterThan(0);
      f.hubspot!.faults.missingScopes.clear();

      const source = openSource(config, f.redis, f.prefix, silentLogger);
      const plan = await planRun(source, config, resolveSearch(config, 'people'), { runId: 'u2-plan' }).finally(() =>
        source.close(),
      );
      f.si.resetStats();
      const next = await syncSearch(f.deps(config), { search: 'people', runId: 'u2' });
      expect(next).toMatchObject({ status: 'completed', personsRevealed: all.length, created: all.length });
      expect(plan.forecastMethod).toBe('first-run');
      expect(f.si.stats('worker')).toMatchObject({ creditsCharged: all.length, tokensCharged: all.length });
      expect(plan).toMatchObject({ forecastCredits: all.length, forecastTokens: all.length });
    },
  );

  it('two runs under a credit cap reveal disjoint persons: a capped run is continued, not repeated', async () => {
    const { f, config } = await start(
      'reveal-cap',
      '  credits: {maxPerRun: 100, maxPerDay: 100000}',
      '\n    allowPartial: true',
    );
    const first = await syncSearch(f.deps(config), { search: 'people', runId: 'c1' });
    expect(first).toMatchObject({ status: 'partial', stopReason: 'credit_cap_run', creditsSpent: 100 });
    const afterFirst = new Set([...phones(f)].filter(([, e]) => e.startsWith('+')).map(([k]) => k));
    expect(afterFirst.size).toBe(100);
    // nothing unpaid landed: every contact written so far carries its phone
    expect(phones(f).size).toBe(100);

    const second = await syncSearch(f.deps(config), { search: 'people', runId: 'c2' });
    expect(second).toMatchObject({
      status: 'partial',
      stopReason: 'credit_cap_run',
      creditsSpent: 100,
      personsRevealed: 100,
    });
    expect(f.si.stats('worker').creditsCharged).toBe(200);
    const afterSecond = new Set([...phones(f)].filter(([, e]) => e.startsWith('+')).map(([k]) => k));
    const newOnes = [...afterSecond].filter((k) => !afterFirst.has(k));
    expect(newOnes.length).toBe(100);
    // the first run's persons passed by without contacts and kept their phone
    for (const k of afterFirst) expect(afterSecond.has(k)).toBe(true);
  });

  it.each([
    ['refuses a re-sent cursor', { refuseResentCursor: true }],
    ['holds a journey to its first page size', { refuseResentCursor: false, keepJourneyLimit: true }],
  ])(
    'an API whose offsets differ from its walk and that %s: fallback to whole pages, reported, and the next run ' +
      'completes the reveals',
    async (_, fault) => {
      const { f, config } = await start('reveal-fallback');
      const all = await f.oracleIds('persons', FILTER);
      await syncSearch(f.deps(config), { search: 'people', runId: 'f1' });
      const inserted = f.si.insertPersons(24, FILTER);
      f.si.faults.set({ ...fault, offsetOrderDiffers: true });
      f.si.resetStats();
      const second = await syncSearch(f.deps(config), { search: 'people', runId: 'f2' });
      expect(second).toMatchObject({ status: 'completed', revealFallback: true });
      if (fault.refuseResentCursor) expect(f.si.stats('worker').served400).toBeGreaterThan(0);
      // whole pages after the fallback: more credits than new persons, but every record is in the CRM
      expect(second.creditsSpent).toBeGreaterThan(inserted.length);
      expect(phones(f).size).toBe(all.length + inserted.length);
      f.si.faults.set({ refuseResentCursor: false, offsetOrderDiffers: false });
      f.si.resetStats();
      const third = await syncSearch(f.deps(config), { search: 'people', runId: 'f3' });
      expect(third.revealFallback).toBeUndefined();
      for (const [, e] of phones(f)) expect(e).toMatch(/^\+/);
      // the third run paid only for the persons the fallback page left unrevealed
      expect(f.si.stats('worker').creditsCharged).toBeLessThan(inserted.length);
    },
  );

  it(
    'an API whose offset pages are not in its walk order: the mismatch is seen, cursors are positioned instead, ' +
      'nothing wrong lands',
    async () => {
      const { f, config } = await start('reveal-offset-order');
      const all = await f.oracleIds('persons', FILTER);
      await syncSearch(f.deps(config), { search: 'people', runId: 'o1' });
      const inserted = f.si.insertPersons(24, FILTER);
      // positioned cursors need an API that serves a re-sent cursor at another `limit` (docs/api-assumptions.md)
      f.si.faults.set({ offsetOrderDiffers: true, keepJourneyLimit: false });
      f.si.resetStats();
      const second = await syncSearch(f.deps(config), { search: 'people', runId: 'o2' });
      const charged = f.si.stats('worker');
      expect(second).toMatchObject({ status: 'completed', created: inserted.length });
      expect(second.revealFallback).toBeUndefined();
      // the first offset answer of each journey is checked and found wrong (paid: those persons land revealed);
      // the rest is revealed through positioned cursors, so the extra tokens exceed one per new person
      expect(charged.creditsCharged).toBeGreaterThan(inserted.length);
      expect(charged.tokensCharged).toBeGreaterThan(all.length + 2 * inserted.length);
      const byKey = phones(f);
      expect(byKey.size).toBe(all.length + inserted.length);
      for (const id of [...all, ...inserted]) expect(byKey.get(id)).toMatch(/^\+/);
      // a calm API afterwards: nothing left to reveal, nothing paid
      f.si.faults.set({ offsetOrderDiffers: false });
      f.si.resetStats();
      await syncSearch(f.deps(config), { search: 'people', runId: 'o3' });
      expect(f.si.stats('worker').creditsCharged).toBe(0);
    },
  );

  it(
    'under live-index churn: what is paid for lands with its contacts, and a calm run afterwards completes the ' +
      'reveals',
    async () => {
      const { f, config } = await start('reveal-churn');
      await syncSearch(f.deps(config), { search: 'people', runId: 'ch1' });
      f.si.insertPersons(24, FILTER);
      f.si.faults.set({ churn: { insertPerPage: 1, removePerPage: 1 } });
      f.si.resetStats();
      const second = await syncSearch(f.deps(config), { search: 'people', runId: 'ch2' });
      expect(second.status).toBe('completed');
      // every credit is accounted for by a person revealed, and stays close to the new persons (churn adds some)
      expect(second.creditsSpent).toBe(f.si.stats('worker').creditsCharged);
      expect(second.personsRevealed).toBe(second.creditsSpent);
      f.si.faults.set({ churn: null });
      await syncSearch(f.deps(config), { search: 'people', runId: 'ch3' });
      const visible = await f.oracleIds('persons', FILTER);
      const byKey = phones(f);
      for (const id of visible) expect(byKey.get(id)).toMatch(/^\+/);
    },
  );

  it('stale reveals are revealed again after reveal.refreshAfterDays', async () => {
    const { f, config } = await start('reveal-stale');
    const all = await f.oracleIds('persons', FILTER);
    await syncSearch(f.deps(config), { search: 'people', runId: 's1' });
    const stale = all.filter((_, i) => i % 100 === 7);
    const source = openSource(config, f.redis, f.prefix, silentLogger);
    try {
      await source.markRevealed(stale, Date.now() - 181 * 86_400_000);
    } finally {
      await source.close();
    }
    f.si.resetStats();
    const second = await syncSearch(f.deps(config), { search: 'people', runId: 's2' });
    expect(f.si.stats('worker').creditsCharged).toBe(stale.length);
    expect(second).toMatchObject({
      status: 'completed',
      personsRevealed: stale.length,
      revealSkipped: all.length - stale.length,
    });
  });

  it('offset mode (a top-N): a larger N later pays only for the persons beyond the first N', async () => {
    const { f, config } = await start(
      'reveal-offset',
      '  credits: {maxPerRun: 100000, maxPerDay: 1000000}',
      `
    mode: offset
    maxRecords: 100`,
      '{company: {headcount: {gte: 1}}, options: {sortFields: [{field: revenue, direction: DESC}]}}',
    );
    const search = config.searches[0]!;
    const first = await syncSearch(f.deps(config), { search: 'people', runId: 'o1' });
    expect(first).toMatchObject({ status: 'completed', creditsSpent: 100, created: 100 });
    search.maxRecords = 200;
    f.si.resetStats();
    const second = await syncSearch(f.deps(config), { search: 'people', runId: 'o2' });
    expect(f.si.stats('worker').creditsCharged).toBe(100);
    expect(second).toMatchObject({
      status: 'completed',
      created: 100,
      unchanged: 100,
      personsRevealed: 100,
      revealSkipped: 100,
    });
    for (const [, phone] of phones(f)) expect(phone).toMatch(/^\+/);
  });

  it('nothing is revealed for a segment outside the allowlist, still', async () => {
    const { f, config } = await start('reveal-allowlist');
    config.searches[0]!.segment = 'icp';
    const err = await syncSearch(f.deps(config), { search: 'people', runId: 'a1' }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'contacts_not_allowed' });
    expect(f.si.stats('worker').creditsCharged).toBe(0);
    expect(f.si.stats('worker').operations.search).toBe(0);
  });
});
