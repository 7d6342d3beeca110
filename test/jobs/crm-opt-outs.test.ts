/**
 * Opt-outs read from the CRM (`suppress.crm`) end to end: the real run against the Sales-Intelligence emulator
 * (credits counted by the emulator), real Redis, the HubSpot emulator through the real @hubspot/api-client (its CRM
 * search endpoint) and the Salesforce emulator through real jsforce (SOQL). A contact carrying the opt-out is
 * neither paid for nor written; a member found opted out leaves the mirror without `onLeave` (`suppressed:
 * nothing`), or is archived (`suppressed: archive`).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { syncSearch } from '../../jobs/sync-search.js';
import { startSalesforceEmulator, type SalesforceEmulator } from '../../src/emulators/salesforce/index.js';
import { findField } from '../../src/emulators/salesforce/salesforce-schema.js';
import { contactsSearch, hubspotConfig, salesforceConfigHead, startFixture, type Fixture } from './sync-fixture.js';

let fx: Fixture | undefined;
let sf: SalesforceEmulator | undefined;
afterEach(async () => {
  await sf?.close();
  await fx?.close();
  fx = undefined;
  sf = undefined;
});

const FILTER = { company: { headcount: { gte: 1 } } };
const CREDITS = '  credits: {maxPerRun: 100000, maxPerDay: 1000000}';
// The spelling for one HubSpot property (as `fields: [hs_email_optout]`).
const OPT_OUT = 'suppress: {crm: {property: hs_email_optout}}\n';

type Stored = { id: string; properties: Record<string, string> };

function contacts(f: Fixture): Map<string, Stored> {
  const table = f.hubspot!.state.tables.get('contacts')!;
  return new Map([...table.objects.values()].map((o) => [o.properties.prospect_sync_id ?? '', o]));
}

describe('suppress.crm: HubSpot (hs_email_optout, read through the CRM search endpoint)', () => {
  it('a contact opted out in HubSpot: no credit paid for them, none of their fields changed', async () => {
    const f = await startFixture('optout-hs-credit', { salesIntel: { persons: 600 } });
    fx = f;
    const records = await f.oracleRecords('persons', FILTER);
    const opted = [records[5]!, records[40]!].map((r) => String(r.id));
    // Contacts already in the portal (written by hand or an earlier sync), two of them opted out.
    const table = f.hubspot!.state.table('contacts');
    const now = new Date().toISOString();
    const before = opted.map((id, i) =>
      structuredClone(
        table.put(
          f.hubspot!.state.newId(),
          { prospect_sync_id: id, firstname: `Hand${i}`, hs_email_optout: 'true' },
          now,
        ),
      ),
    );
    const config = f.config(hubspotConfig(contactsSearch(), CREDITS) + OPT_OUT);
    const summary = await syncSearch(f.deps(config), { search: 'people', runId: 'o1' });
    const left = records.length - opted.length;
    expect(f.si.stats('worker').creditsCharged).toBe(left);
    expect(summary).toMatchObject({ status: 'completed', created: left, creditsSpent: left, suppressed: 2 });
    const after = contacts(f);
    expect(after.size).toBe(records.length);
    for (const b of before) expect(after.get(b.properties.prospect_sync_id!)).toEqual(b);
    expect(f.hubspot!.stats.byRoute.search).toBeGreaterThan(0);
  });

  it('pages through more opt-outs than one search answer holds', async () => {
    const f = await startFixture('optout-hs-pages', { salesIntel: { persons: 600 } });
    fx = f;
    const records = await f.oracleRecords('persons', FILTER);
    const opted = records.slice(0, 450).map((r) => String(r.id));
    const table = f.hubspot!.state.table('contacts');
    const now = new Date().toISOString();
    for (const id of opted) table.put(f.hubspot!.state.newId(), { prospect_sync_id: id, hs_email_optout: 'true' }, now);
    const config = f.config(hubspotConfig(contactsSearch(), CREDITS) + OPT_OUT);
    const summary = await syncSearch(f.deps(config), { search: 'people', runId: 'p1' });
    expect(summary).toMatchObject({ status: 'completed', suppressed: 450, created: records.length - 450 });
    expect(f.si.stats('worker').creditsCharged).toBe(records.length - 450);
    expect(f.hubspot!.stats.byRoute.search).toBe(3);
  });

  it('a member opted out later leaves the mirror: no onLeave (suppressed: nothing), or archived', async () => {
    const f = await startFixture('optout-hs-leave', { salesIntel: { persons: 600 } });
    fx = f;
    const records = await f.oracleRecords('persons', FILTER);
    const leave = '\n    onLeave: {setFields: {jobtitle: left}}\n    leave: {confirmRuns: 1, maxShare: 0.5}';
    const first = f.config(hubspotConfig(contactsSearch(leave), CREDITS));
    expect(await syncSearch(f.deps(first), { search: 'people', runId: 'l1' })).toMatchObject({
      status: 'completed',
      created: records.length,
    });
    // Opted out in HubSpot after the first run, and edited by hand there.
    const [a, b] = [String(records[3]!.id), String(records[9]!.id)];
    const stored = contacts(f);
    Object.assign(stored.get(a)!.properties, { hs_email_optout: 'true', firstname: 'Hand' });
    const kept = structuredClone(stored.get(a)!);
    const second = f.config(hubspotConfig(contactsSearch(leave), CREDITS) + OPT_OUT);
    // A full resync writes every record again: only the suppression keeps the opted-out contact as it is.
    const s2 = await syncSearch(f.deps(second), { search: 'people', runId: 'l2', fullResync: true });
    expect(s2).toMatchObject({ status: 'completed', suppressed: 1, left: 1, leaveActions: 0 });
    expect(contacts(f).get(a)).toEqual(kept);

    Object.assign(contacts(f).get(b)!.properties, { hs_email_optout: 'true' });
    const third = f.config(hubspotConfig(contactsSearch(`${leave}\n    suppressed: archive`), CREDITS) + OPT_OUT);
    const s3 = await syncSearch(f.deps(third), { search: 'people', runId: 'l3' });
    expect(s3).toMatchObject({ status: 'completed', suppressed: 2, left: 1, leaveActions: 1 });
    expect(contacts(f).has(b)).toBe(false);
    expect(f.hubspot!.state.table('contacts').archived.size).toBe(1);
    // the one that left before is not archived now: it is no member any more
    expect(contacts(f).get(a)).toEqual(kept);
  });
});

describe('suppress.crm: Salesforce (HasOptedOutOfEmail, DoNotCall by SOQL)', () => {
  it('a Contact opted out in Salesforce: no credit paid for them, none of their fields changed', async () => {
    const f = await startFixture('optout-sf', { salesIntel: { persons: 600 }, hubspot: false });
    fx = f;
    const client = { clientId: 'sf-optout', clientSecret: 'sf-optout-secret' };
    const org = await startSalesforceEmulator({ port: 0, clients: [client] });
    sf = org;
    f.env.SF_LOGIN_URL = org.url;
    f.env.SF_CLIENT_SECRET = client.clientSecret;
    const records = await f.oracleRecords('persons', FILTER);
    const [byEmail, byCall] = [String(records[2]!.id), String(records[30]!.id)];
    const contact = org.state.object('Contact');
    const ext = findField(contact, 'Prospect_Sync_Id__c')!;
    org.state.upsert(contact, ext, byEmail, { LastName: 'Hand', FirstName: 'Kept', HasOptedOutOfEmail: true }, []);
    org.state.upsert(contact, ext, byCall, { LastName: 'Hand', FirstName: 'Called', DoNotCall: true }, []);
    const before = org.state.all('Contact').map((r) => structuredClone(r));
    const head = salesforceConfigHead(client.clientId).replace('  pageSize: 100', `  pageSize: 100\n${CREDITS}`);
    const yaml = `${head}reveal:
  contactsAllowedSegments: [key-accounts]
suppress: {crm: {field: HasOptedOutOfEmail}}
searches:
  - name: people
    segment: key-accounts
    entity: persons
    filter: {company: {headcount: {gte: 1}}}
    view: [contacts]
    destination: sf
    object: Contact
    matchOn: {from: id}
    fields: {FirstName: firstName, LastName: lastName, Phone: contacts.phone}
    suppress: {crm: {fields: [DoNotCall]}}
`;
    const summary = await syncSearch(f.deps(f.config(yaml)), { search: 'people', runId: 's1' });
    const left = records.length - 2;
    expect(f.si.stats('worker').creditsCharged).toBe(left);
    expect(summary).toMatchObject({ status: 'completed', created: left, suppressed: 2 });
    const after = new Map(org.state.all('Contact').map((r) => [String(r.Prospect_Sync_Id__c), r]));
    expect(after.size).toBe(records.length);
    for (const b of before) expect(after.get(String(b.Prospect_Sync_Id__c))).toEqual(b);
  });
});
