import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syncSearch } from '../../jobs/sync-search.js';
import { createRejectStore } from '../../src/crm/index.js';
import { listRuns } from '../../src/runs/run-history.js';
import { acquireRunLock, RunAlreadyActiveError } from '../../src/runs/run-lock.js';
import {
  COMPANY_FILTER,
  COMPANY_SEARCH,
  hubspotConfig,
  hubspotValues,
  startFixture,
  type Fixture,
} from './sync-fixture.js';

const CONTRACT_FIELDS = [
  'search',
  'status',
  'counted',
  'fetched',
  'unique',
  'created',
  'updated',
  'unchanged',
  'rejected',
  'tokensSpent',
  'creditsSpent',
  'requests',
  'throttled',
  'durationMs',
];

let fx: Fixture;
beforeAll(async () => {
  fx = await startFixture('sync-search');
});
afterAll(async () => fx.close());

describe('syncSearch (real emulators, real HubSpot client, real Redis)', () => {
  it('lands exactly the matching records, once each, then finds them unchanged', async () => {
    const config = fx.config(hubspotConfig(COMPANY_SEARCH));
    const expected = await fx.oracleIds('companies', COMPANY_FILTER);
    expect(expected.length).toBeGreaterThan(200);
    fx.si.resetStats();

    const first = await syncSearch(fx.deps(config), { search: 'all-companies', runId: 'run-1' });
    for (const field of CONTRACT_FIELDS) expect(first).toHaveProperty(field);
    expect(first).toMatchObject({
      status: 'completed',
      counted: expected.length,
      unique: expected.length,
      created: expected.length,
      updated: 0,
      rejected: 0,
    });
    expect(first.partitions).toBeGreaterThan(1);
    const stats = fx.si.stats('worker');
    expect(first.tokensSpent).toBe(stats.tokensCharged);
    expect(first.fetched).toBe(stats.recordsReturned);
    expect(first.requests.search).toBe(stats.operations.search);
    expect(first.requests.count).toBe(stats.operations.count);
    expect(first.throttled).toBe(stats.served429.search + stats.served429.count);
    expect(hubspotValues(fx.hubspot!, 'companies', 'prospect_sync_id')).toEqual(expected);

    const second = await syncSearch(fx.deps(config), { search: 'all-companies', runId: 'run-2' });
    expect(second).toMatchObject({ status: 'completed', created: 0, updated: 0, unchanged: expected.length });
    expect(hubspotValues(fx.hubspot!, 'companies', 'prospect_sync_id')).toEqual(expected);
    const history = await listRuns(fx.redis, 'all-companies', { prefix: fx.prefix });
    expect(history.map((r) => r.runId)).toEqual(['run-2', 'run-1']);
    // the checkpoint of a completed run is gone (cursors are not kept)
    expect(await fx.redis.exists(`${fx.prefix}:run:all-companies:checkpoint`)).toBe(0);
  });

  it('dry run fetches and maps but writes nothing', async () => {
    const people = (name: string, lte: number, gte: number): string => `
  - name: ${name}
    segment: icp
    entity: persons
    filter: {company: {headcount: {gte: ${gte}, lte: ${lte}}}}
    destination: crm
    object: contacts
    matchOn: {field: prospect_sync_id, from: id}
    fields: {firstname: firstName, lastname: lastName}
`;
    const config = fx.config(hubspotConfig(people('dry-people', 20, 1) + people('other-people', 40, 21)));
    // contacts another search wrote are there already: the dry run must leave the CRM as it is
    const other = await syncSearch(fx.deps(config), { search: 'other-people', runId: 'other-1' });
    expect(other.status).toBe('completed');
    const before = fx.hubspot!.state.count('contacts');
    const expected = await fx.oracleIds('persons', { company: { headcount: { gte: 1, lte: 20 } } });
    const summary = await syncSearch(fx.deps(config), { search: 'dry-people', runId: 'dry-1', dryRun: true });
    expect(summary).toMatchObject({
      status: 'completed',
      dryRun: true,
      unique: expected.length,
      created: expected.length,
      updated: 0,
    });
    expect(fx.hubspot!.state.count('contacts')).toBe(before);
    // nothing remembered either: a real run afterwards creates every record
    const real = await syncSearch(fx.deps(config), { search: 'dry-people', runId: 'real-1' });
    expect(real).toMatchObject({ status: 'completed', created: expected.length });
    expect(fx.hubspot!.state.count('contacts')).toBe(before + expected.length);
  });

  it('persons land as contacts associated with their company (the match field of the company search)', async () => {
    const config = fx.config(
      hubspotConfig(`${COMPANY_SEARCH}
  - name: linked-people
    segment: icp
    entity: persons
    filter: {company: {headcount: {gte: 1, lte: 5}}}
    destination: crm
    object: contacts
    matchOn: {field: prospect_sync_id, from: id}
    fields: {firstname: firstName, lastname: lastName}
    associate: {company: {from: companyId}}
`),
    );
    await syncSearch(fx.deps(config), { search: 'all-companies', runId: 'link-c' });
    const people = await syncSearch(fx.deps(config), { search: 'linked-people', runId: 'link-p' });
    expect(people).toMatchObject({ status: 'completed', rejected: 0 });
    expect(people.linkErrors ?? 0).toBe(0);
    const hs = fx.hubspot!.state;
    const records = await fx.oracleRecords('persons', { company: { headcount: { gte: 1, lte: 5 } } });
    expect(records.length).toBe(people.unique);
    for (const person of records) {
      const contact = hs.find('contacts', 'prospect_sync_id', String(person.id));
      const company = hs.find('companies', 'prospect_sync_id', String(person.companyId));
      expect(contact && company).toBeTruthy();
      const links = hs.associations.filter((a) => a.fromType === 'contacts' && a.fromId === contact!.id);
      expect(links.map((a) => a.toId)).toContain(company!.id);
    }
  });

  it('offset mode: the top N by revenue, complete once it has its N', async () => {
    const config = fx.config(
      hubspotConfig(`
  - name: top-revenue
    segment: icp
    entity: companies
    mode: offset
    filter:
      company: {headcount: {gte: 1}}
      options: {sortFields: [{field: revenue, direction: DESC}]}
    maxRecords: 70
    destination: crm
    object: companies
    matchOn: {field: top_sync_id, from: id}
    fields: {name: name}
`),
    );
    const all = await fx.oracleRecords('companies', { company: { headcount: { gte: 1 } } });
    const revenues = all.map((r) => Number(r.revenue)).sort((a, b) => b - a);
    const summary = await syncSearch(fx.deps(config), { search: 'top-revenue', runId: 'top-1' });
    expect(summary).toMatchObject({ status: 'completed', limitedBy: 'max_records', fetched: 70, unique: 70 });
    const landed = hubspotValues(fx.hubspot!, 'companies', 'top_sync_id').filter((v) => v !== '');
    expect(landed.length).toBe(70);
    const byId = new Map(all.map((r) => [String(r.id), Number(r.revenue)]));
    // every landed company is at least as rich as the 70th richest
    for (const id of landed) expect(byId.get(id)).toBeGreaterThanOrEqual(revenues[69]!);
  });

  it('records the CRM refuses are counted, kept with their reason, and sent again by the next run', async () => {
    const config = fx.config(
      hubspotConfig(`
  - name: picky
    segment: icp
    entity: companies
    filter: {company: {headcount: {gte: 1, lte: 5}}}
    destination: crm
    object: companies
    matchOn: {field: picky_sync_id, from: id}
    fields: {name: name}
`),
    );
    const expected = await fx.oracleIds('companies', { company: { headcount: { gte: 1, lte: 5 } } });
    const refused = expected.slice(0, 3);
    fx.hubspot!.faults.reject = { values: new Set(refused), mode: 'record' };
    try {
      const first = await syncSearch(fx.deps(config), { search: 'picky', runId: 'picky-1' });
      expect(first).toMatchObject({ status: 'completed', rejected: 3, created: expected.length - 3 });
      const store = createRejectStore(fx.redis, fx.prefix);
      expect((await store.list('picky')).map((r) => r.key).sort()).toEqual(refused);
      expect(await store.pendingCount('picky')).toBe(3);
    } finally {
      fx.hubspot!.faults.reject = { values: new Set(), mode: 'record' };
    }
    const second = await syncSearch(fx.deps(config), { search: 'picky', runId: 'picky-2' });
    expect(second).toMatchObject({ status: 'completed', rejected: 0, created: 3, unchanged: expected.length - 3 });
    expect(hubspotValues(fx.hubspot!, 'companies', 'picky_sync_id').filter((v) => v !== '')).toEqual(expected);
    expect(await createRejectStore(fx.redis, fx.prefix).pendingCount('picky')).toBe(0);
  });

  it('never runs a search twice at once: a held lock refuses the run before it spends anything', async () => {
    const config = fx.config(hubspotConfig(COMPANY_SEARCH));
    const held = await acquireRunLock(fx.redis, 'all-companies', 'other-run', { prefix: fx.prefix });
    fx.si.resetStats();
    try {
      await expect(syncSearch(fx.deps(config), { search: 'all-companies', runId: 'run-3' })).rejects.toBeInstanceOf(
        RunAlreadyActiveError,
      );
      expect(fx.si.stats('worker').operations.count + fx.si.stats('worker').operations.search).toBe(0);
    } finally {
      await held.release();
    }
  });

  it(
    'a second attempt of the same run (a stalled job picked up while its worker lives) waits, then returns the ' +
      'run: nothing walked twice',
    async () => {
      const config = fx.config(hubspotConfig(COMPANY_SEARCH));
      const expected = await fx.oracleIds('companies', COMPANY_FILTER);
      fx.si.resetStats();
      const deps = { ...fx.deps(config), lockTtlMs: 1_000 };
      const first = syncSearch(deps, { search: 'all-companies', runId: 'run-twice' });
      await new Promise((resolve) => setTimeout(resolve, 50)); // the first attempt holds the lock by now
      const second = syncSearch(deps, { search: 'all-companies', runId: 'run-twice' });
      const [a, b] = await Promise.all([first, second]);
      expect(a).toMatchObject({ status: 'completed', fetched: expected.length });
      expect(a.created + a.updated + a.unchanged).toBe(expected.length);
      expect(b).toEqual(a);
      expect(fx.si.stats('worker').tokensCharged).toBe(expected.length);
      expect(hubspotValues(fx.hubspot!, 'companies', 'prospect_sync_id').filter((v) => v !== '')).toEqual(expected);
    },
  );

  it(
    'refuses contacts at run time for a segment outside the allowlist, even if the config was changed after ' + 'load',
    async () => {
      const config = fx.config(
        hubspotConfig(`
  - name: people
    segment: icp
    entity: persons
    filter: {company: {headcount: {gte: 1}}}
    view: [demographics]
    destination: crm
    object: contacts
    matchOn: {field: prospect_sync_id, from: id}
    fields: {firstname: firstName}
`),
      );
      config.searches[0]!.view = ['demographics', 'contacts'];
      fx.si.resetStats();
      const err = await syncSearch(fx.deps(config), { search: 'people', runId: 'run-c' }).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'contacts_not_allowed' });
      expect(fx.si.stats('worker').creditsCharged).toBe(0);
      expect(fx.si.stats('worker').operations.search).toBe(0);
    },
  );
});
