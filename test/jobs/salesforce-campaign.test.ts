/**
 * A Salesforce campaign per search (issue 23 items 2, 6): `list: {name}` on a Salesforce search holds its confirmed
 * members as CampaignMembers after every complete run, `onLeave: removeFromList` deletes the members of confirmed
 * leavers, and a list of Accounts needs the org's "Accounts as Campaign Members". Real jsforce, emulators, real Redis.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { syncSearch } from '../../jobs/sync-search.js';
import { startSalesforceEmulator, type SalesforceEmulator } from '../../src/emulators/salesforce/index.js';
import { salesforceConfigHead, startFixture, type Fixture } from './sync-fixture.js';

const SF = { clientId: 'sf-campaign-client', clientSecret: 'sf-campaign-secret' };
const PERSON_FILTER = {
  company: { headcount: { gte: 1, lte: 1000000 } },
  person: { seniority: { include: ['director', 'vp'] } },
};
const OUT = 2_000_000; // above the search's headcount range: the company's people leave the filter

let fx: Fixture;
let sf: SalesforceEmulator;
let orgs = 0;
beforeAll(async () => {
  fx = await startFixture('sf-campaign', { hubspot: false });
});
beforeEach(async () => {
  await sf?.close();
  // A new org each test (its own change hashes and memberships); small query batches: member reads and lookups go
  // through more than one page.
  sf = await startSalesforceEmulator({
    port: 0,
    clients: [SF],
    queryBatchSize: 200,
    orgId: `00D${String(++orgs).padStart(12, '0')}AAA`,
  });
  fx.env.SF_LOGIN_URL = sf.url;
  fx.env.SF_CLIENT_SECRET = SF.clientSecret;
});
afterAll(async () => {
  await sf.close();
  await fx.close();
});

const leadersYaml = (name: string, campaign: string): string => `${salesforceConfigHead(SF.clientId)}searches:
  - name: ${name}
    segment: icp
    entity: persons
    filter:
      company: {headcount: {gte: 1, lte: 1000000}}
      person: {seniority: {include: [director, vp]}}
    view: [demographics]
    destination: sf
    object: Contact
    matchOn: {from: id}
    fields: {FirstName: firstName, LastName: lastName, Title: jobTitle}
    list: {name: ${campaign}}
    onLeave: removeFromList
`;

const accountsYaml = (name: string): string => `${salesforceConfigHead(SF.clientId)}searches:
  - name: ${name}
    segment: icp
    entity: companies
    filter: {company: {headcount: {gte: 1, lte: 8}}}
    destination: sf
    object: Account
    matchOn: {from: id}
    fields: {Name: name}
    list: {name: Small accounts}
`;

/** The match keys of the members (by `link`: ContactId, AccountId) of the emulator's campaigns called `name`. */
function campaignKeys(name: string, object: 'Contact' | 'Account', link: string): string[] {
  const campaigns = new Set(
    sf.state
      .all('Campaign')
      .filter((c) => c.Name === name)
      .map((c) => c.Id),
  );
  const keyOf = new Map(sf.state.all(object).map((r) => [r.Id, String(r.Prospect_Sync_Id__c)]));
  return sf.state
    .all('CampaignMember')
    .filter((m) => campaigns.has(m.CampaignId ?? null))
    .map((m) => keyOf.get(m[link] ?? null) ?? `unknown ${String(m[link])}`)
    .sort();
}

/** CampaignMember inserts and deletes (collections calls) so far. */
const memberWrites = (): number =>
  (sf.stats.requests['POST composite/sobjects'] ?? 0) + (sf.stats.requests['DELETE composite/sobjects'] ?? 0);

describe('a Salesforce campaign per search', () => {
  it(
    'holds the contacts after run 1, loses a leaver after 2 more complete runs, an unchanged run writes no ' +
      'member, a re-entry is re-added',
    async () => {
      const config = fx.config(leadersYaml('leaders-campaign', 'VP leaders'));
      const persons = await fx.oracleRecords('persons', PERSON_FILTER);
      const ids = [...new Set(persons.map((p) => String(p.id)))].sort();
      expect(ids.length).toBeGreaterThan(200); // more than one collections call and one query page
      const run = (runId: string) => syncSearch(fx.deps(config), { search: 'leaders-campaign', runId });

      expect(await run('c1')).toMatchObject({
        status: 'completed',
        created: ids.length,
        entered: ids.length,
        listAdded: ids.length,
        listRemoved: 0,
      });
      expect(sf.state.all('Campaign').filter((c) => c.Name === 'VP leaders')).toHaveLength(1);
      expect(campaignKeys('VP leaders', 'Contact', 'ContactId')).toEqual(ids);

      // The people of one company leave (its headcount leaves the filter's range).
      const company = String(persons[0]!.companyId);
      const leavers = [
        ...new Set(persons.filter((p) => String(p.companyId) === company).map((p) => String(p.id))),
      ].sort();
      const stay = ids.filter((id) => !leavers.includes(id));
      fx.si.setCompanyHeadcount(company, OUT);
      expect(await run('c2')).toMatchObject({ status: 'completed', left: 0, listAdded: 0, listRemoved: 0 });
      expect(campaignKeys('VP leaders', 'Contact', 'ContactId')).toEqual(ids);
      expect(await run('c3')).toMatchObject({
        status: 'completed',
        left: leavers.length,
        leaveActions: leavers.length,
        leaversPending: 0,
        listAdded: 0,
        listRemoved: leavers.length,
      });
      expect(campaignKeys('VP leaders', 'Contact', 'ContactId')).toEqual(stay);

      const writes = memberWrites();
      expect(await run('c4')).toMatchObject({ status: 'completed', entered: 0, left: 0, listAdded: 0, listRemoved: 0 });
      expect(memberWrites()).toBe(writes);

      fx.si.setCompanyHeadcount(company, 10);
      expect(await run('c5')).toMatchObject({
        status: 'completed',
        entered: leavers.length,
        listAdded: leavers.length,
        listRemoved: 0,
      });
      expect(campaignKeys('VP leaders', 'Contact', 'ContactId')).toEqual(ids);
    },
  );

  it('a contact already in the campaign is no error; two campaigns of the name are refused, naming it', async () => {
    const config = fx.config(leadersYaml('leaders-dup', 'Hand made'));
    const ids = await fx.oracleIds('persons', PERSON_FILTER);
    // Someone made the campaign and added a contact by hand before the first run.
    const campaign = sf.state.create(sf.state.object('Campaign'), { Name: 'Hand made' }, []);
    const contact = sf.state.upsert(
      sf.state.object('Contact'),
      sf.state.object('Contact').fields.find((f) => f.name === 'Prospect_Sync_Id__c')!,
      ids[0]!,
      { LastName: 'Early' },
      [],
    );
    if (!campaign.ok || !contact.ok) throw new Error('set-up failed');
    expect(
      sf.state.create(sf.state.object('CampaignMember'), { CampaignId: campaign.id, ContactId: contact.id }, []).ok,
    ).toBe(true);

    const first = await syncSearch(fx.deps(config), { search: 'leaders-dup', runId: 'd1' });
    expect(first).toMatchObject({ status: 'completed', entered: ids.length, listAdded: ids.length - 1 });
    expect(first.warnings).toBeUndefined();
    expect(campaignKeys('Hand made', 'Contact', 'ContactId')).toEqual(ids);

    // A second campaign of the same name: which one is the list cannot be told.
    expect(sf.state.create(sf.state.object('Campaign'), { Name: 'Hand made' }, []).ok).toBe(true);
    fx.si.setCompanyHeadcount(String((await fx.oracleRecords('persons', PERSON_FILTER))[0]!.companyId), 10);
    const second = await syncSearch(fx.deps(config), { search: 'leaders-dup', runId: 'd2' });
    expect(second.status).toBe('completed');
    const refused = second.warnings?.groups?.find((g) => g.code === 'list_refused');
    expect(refused?.example ?? JSON.stringify(second.warnings)).toMatch(/2 campaigns named "Hand made"/);
  });

  it(
    'an Accounts list on an org without Accounts as Campaign Members fails the preflight saying what the org can ' +
      'do, spending no search token',
    async () => {
      const config = fx.config(accountsYaml('small-accounts'));
      const before = fx.si.stats('worker');
      const summary = await syncSearch(fx.deps(config), { search: 'small-accounts', runId: 'a1' });
      const after = fx.si.stats('worker');
      expect(summary).toMatchObject({
        status: 'failed',
        fetched: 0,
        tokensSpent: 0,
        error: { code: 'crm_schema_mismatch' },
      });
      expect(summary.error?.message).toMatch(/enable "Accounts as Campaign Members"/);
      expect(summary.error?.message).toMatch(/drop list: .*setFields.*si_search_<name>__c: \{value: true\}/);
      expect(after.tokensCharged - before.tokensCharged).toBe(0);
      expect(after.operations.search - before.operations.search).toBe(0);
      expect(sf.state.all('Account')).toHaveLength(0);
      expect(sf.state.all('Campaign')).toHaveLength(0);
    },
  );

  it('with the setting on, the Accounts land in the campaign', async () => {
    sf.state.settings.accountsAsCampaignMembers = true;
    const config = fx.config(accountsYaml('small-accounts-on'));
    const ids = await fx.oracleIds('companies', { company: { headcount: { gte: 1, lte: 8 } } });
    expect(await syncSearch(fx.deps(config), { search: 'small-accounts-on', runId: 'a2' })).toMatchObject({
      status: 'completed',
      created: ids.length,
      listAdded: ids.length,
    });
    expect(campaignKeys('Small accounts', 'Account', 'AccountId')).toEqual(ids);
  });
});
