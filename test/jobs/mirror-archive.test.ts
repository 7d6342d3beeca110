/**
 * `onLeave: archive` (issue 23 item 3): confirmed leavers are archived in HubSpot and deleted in Salesforce, only
 * after 2 complete runs (never a capped or aborted one), held back by the leave guard like every action; a record
 * that re-enters is created again with its fields (and re-added to the search's list). Real HubSpot client and
 * jsforce against the emulators, real Redis.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { syncSearch } from '../../jobs/sync-search.js';
import { reviewLeavers } from '../../jobs/sync-search/index.js';
import type { HubSpotEmulator } from '../../src/emulators/hubspot/index.js';
import { startSalesforceEmulator, type SalesforceEmulator } from '../../src/emulators/salesforce/index.js';
import {
  COMPANY_FILTER,
  companySearch,
  hubspotConfig,
  salesforceConfigHead,
  startFixture,
  type Fixture,
} from './sync-fixture.js';

let fx: Fixture | undefined;
let sf: SalesforceEmulator | undefined;
afterEach(async () => {
  await sf?.close();
  await fx?.close();
  sf = undefined;
  fx = undefined;
});

const OUT = 2_000_000; // above the search's headcount range: the company leaves the filter

function searchYaml(extra = ''): string {
  return companySearch(
    'icp',
    `    list: {name: ICP}
    onLeave: archive
${extra}`,
  );
}

/** The live HubSpot company with this match key, if any. */
function liveCompany(
  hubspot: HubSpotEmulator,
  key: string,
): { id: string; properties: Record<string, string> } | undefined {
  return [...(hubspot.state.tables.get('companies')?.objects.values() ?? [])].find(
    (o) => o.properties.prospect_sync_id === key,
  );
}

function archivedCompanies(hubspot: HubSpotEmulator, key: string): string[] {
  return [...(hubspot.state.tables.get('companies')?.archived.values() ?? [])]
    .filter((o) => o.properties.prospect_sync_id === key)
    .map((o) => o.id);
}

function listIds(hubspot: HubSpotEmulator): string[] {
  return [...(hubspot.state.lists.byNameOf('ICP', '0-2')?.members.keys() ?? [])];
}

describe('mirror: onLeave archive on HubSpot', () => {
  it(
    'archives a leaver after 2 complete runs only; it re-enters and is created again with its fields and list ' +
      'membership',
    async () => {
      const f = await startFixture('mirror-archive');
      fx = f;
      const hubspot = f.hubspot!;
      const ids = await f.oracleIds('companies', COMPANY_FILTER);
      const config = f.config(hubspotConfig(searchYaml()));
      const run = (runId: string, extra: object = {}) => syncSearch(f.deps(config), { search: 'icp', runId, ...extra });

      expect(await run('a1')).toMatchObject({ status: 'completed', entered: ids.length, listAdded: ids.length });
      const leaver = ids[0]!;
      const first = liveCompany(hubspot, leaver)!;
      expect(listIds(hubspot)).toContain(first.id);
      f.si.setCompanyHeadcount(leaver, OUT);

      expect(await run('a2')).toMatchObject({ status: 'completed', entered: 0, left: 0, leaveActions: 0 });
      // Neither a capped run nor an aborted one counts as the second absence.
      const capped = await syncSearch(f.deps(f.config(hubspotConfig(searchYaml('    maxRecords: 20')))), {
        search: 'icp',
        runId: 'a-capped',
      });
      expect(capped).toMatchObject({ status: 'completed', limitedBy: 'max_records' });
      expect((await run('a-aborted', { signal: AbortSignal.abort() })).status).not.toBe('completed');
      expect(liveCompany(hubspot, leaver)?.id).toBe(first.id);
      expect(hubspot.stats.byRoute.archive ?? 0).toBe(0);

      expect(await run('a-dry', { dryRun: true })).toMatchObject({ status: 'completed', left: 1, leaveActions: 1 });
      expect(hubspot.stats.byRoute.archive ?? 0).toBe(0);
      expect(await run('a3')).toMatchObject({
        status: 'completed',
        entered: 0,
        left: 1,
        leaveActions: 1,
        leaversPending: 0,
      });
      expect(liveCompany(hubspot, leaver)).toBeUndefined();
      expect(archivedCompanies(hubspot, leaver)).toEqual([first.id]);
      expect(listIds(hubspot)).not.toContain(first.id);
      expect(liveCompany(hubspot, ids[1]!)).toBeDefined();
      expect(hubspot.stats.byRoute.archive).toBe(1);

      // It re-enters: created anew (HubSpot gives the archived record's unique value to a new record), its fields
      // written, and the list holds the new record.
      f.si.setCompanyHeadcount(leaver, 50);
      const back = await run('a4');
      expect(back).toMatchObject({ status: 'completed', entered: 1, left: 0, created: 1, listAdded: 1 });
      const again = liveCompany(hubspot, leaver);
      expect(again?.id).toBeDefined();
      expect(again?.id).not.toBe(first.id);
      expect(again?.properties.name).toBe(first.properties.name);
      expect(listIds(hubspot)).toContain(again!.id);
    },
    120_000,
  );

  it('the leave guard holds archive back; leavers --apply then archives', async () => {
    const f = await startFixture('mirror-archive-guard');
    fx = f;
    const hubspot = f.hubspot!;
    const ids = await f.oracleIds('companies', COMPANY_FILTER);
    const config = f.config(hubspotConfig(searchYaml('    leave: {confirmRuns: 1}')));
    expect(await syncSearch(f.deps(config), { search: 'icp', runId: 'g1' })).toMatchObject({
      status: 'completed',
      entered: ids.length,
    });
    const half = ids.slice(0, Math.floor(ids.length / 2));
    for (const id of half) f.si.setCompanyHeadcount(id, OUT);
    const guarded = await syncSearch(f.deps(config), { search: 'icp', runId: 'g2' });
    expect(guarded).toMatchObject({
      status: 'completed',
      left: half.length,
      leaveActions: 0,
      leaversPending: half.length,
    });
    expect(guarded.warnings?.groups?.some((g) => g.code === 'leave_guard')).toBe(true);
    expect(half.every((id) => liveCompany(hubspot, id) !== undefined)).toBe(true);
    expect(hubspot.stats.byRoute.archive ?? 0).toBe(0);

    expect((await reviewLeavers(f.deps(config), 'icp', true)).applied).toEqual({ acted: half.length, pending: 0 });
    expect(
      half.every((id) => liveCompany(hubspot, id) === undefined && archivedCompanies(hubspot, id).length === 1),
    ).toBe(true);
    expect(ids.slice(half.length).every((id) => liveCompany(hubspot, id) !== undefined)).toBe(true);
  }, 120_000);
});

const SF = { clientId: 'sf-archive-client', clientSecret: 'sf-archive-secret' };

describe('mirror: onLeave archive on Salesforce', () => {
  it('deletes a leaver after 2 complete runs; it re-enters and is created again', async () => {
    const f = await startFixture('mirror-archive-sf', { hubspot: false });
    fx = f;
    const org = await startSalesforceEmulator({ port: 0, clients: [SF] });
    sf = org;
    f.env.SF_LOGIN_URL = org.url;
    f.env.SF_CLIENT_SECRET = SF.clientSecret;
    const config = f.config(`${salesforceConfigHead(SF.clientId)}searches:
  - name: accounts
    segment: icp
    entity: companies
    filter: {company: {headcount: {gte: 1, lte: 1000000}}}
    destination: sf
    object: Account
    matchOn: {from: id}
    fields: {Name: name, NumberOfEmployees: headcount}
    onLeave: archive
`);
    const ids = await f.oracleIds('companies', COMPANY_FILTER);
    const run = (runId: string, extra: object = {}) =>
      syncSearch(f.deps(config), { search: 'accounts', runId, ...extra });
    const account = (key: string) => org.state.findBy('Account', 'Prospect_Sync_Id__c', key)[0];

    expect(await run('s1')).toMatchObject({ status: 'completed', entered: ids.length, created: ids.length });
    const leaver = ids[3]!;
    const first = account(leaver)!;
    f.si.setCompanyHeadcount(leaver, OUT);
    expect(await run('s2')).toMatchObject({ status: 'completed', left: 0, leaveActions: 0 });
    expect((await run('s-aborted', { signal: AbortSignal.abort() })).status).not.toBe('completed');
    expect(account(leaver)?.Id).toBe(first.Id);

    expect(await run('s3')).toMatchObject({ status: 'completed', left: 1, leaveActions: 1, leaversPending: 0 });
    expect(account(leaver)).toBeUndefined();
    expect(org.state.recycleBin.get(String(first.Id))?.object).toBe('Account');
    expect(org.state.all('Account')).toHaveLength(ids.length - 1);

    // Back with the values it had: nothing changed since its last write, yet it is written (created) in full.
    f.si.setCompanyHeadcount(leaver, Number(first.NumberOfEmployees));
    expect(await run('s4')).toMatchObject({ status: 'completed', entered: 1, created: 1 });
    const again = account(leaver);
    expect(again?.Id).not.toBe(first.Id);
    expect(again?.Name).toBe(first.Name);
    expect(again?.NumberOfEmployees).toBe(first.NumberOfEmployees);
  }, 120_000);
});
