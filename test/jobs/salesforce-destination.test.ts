import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syncSearch } from '../../jobs/sync-search.js';
import { startSalesforceEmulator, type SalesforceEmulator } from '../../src/emulators/salesforce/index.js';
import { salesforceAccountSearch, salesforceConfigHead, startFixture, type Fixture } from './sync-fixture.js';

const SF = { clientId: 'sf-test-client', clientSecret: 'sf-test-secret' };
const PERSON_FILTER = { company: { headcount: { gte: 1 } }, person: { seniority: { include: ['director', 'vp'] } } };

let fx: Fixture;
let sf: SalesforceEmulator;
beforeAll(async () => {
  fx = await startFixture('sync-salesforce', { hubspot: false });
  sf = await startSalesforceEmulator({ port: 0, clients: [SF] });
});
afterAll(async () => {
  await sf.close();
  await fx.close();
});

const yaml = (): string => `${salesforceConfigHead(SF.clientId)}searches:
${salesforceAccountSearch('accounts')}
  - name: leaders
    segment: icp
    entity: persons
    filter:
      company: {headcount: {gte: 1}}
      person: {seniority: {include: [director, vp]}}
    view: [demographics]
    destination: sf
    object: Contact
    matchOn: {from: id}
    fields: {FirstName: firstName, LastName: lastName, Title: jobTitle}
    associate: {company: {from: companyId}}
`;

describe('Salesforce destination end to end (real jsforce against the emulator)', () => {
  it('lands Accounts, then Contacts linked to their Account by external id', async () => {
    fx.env.SF_LOGIN_URL = sf.url;
    fx.env.SF_CLIENT_SECRET = SF.clientSecret;
    const config = fx.config(yaml());
    const companies = await fx.oracleIds('companies', { company: { headcount: { gte: 1 } } });
    const persons = await fx.oracleIds('persons', PERSON_FILTER);
    expect(persons.length).toBeGreaterThan(20);

    const a = await syncSearch(fx.deps(config), { search: 'accounts', runId: 'sf-a' });
    expect(a).toMatchObject({ status: 'completed', created: companies.length, rejected: 0 });
    const p = await syncSearch(fx.deps(config), { search: 'leaders', runId: 'sf-p' });
    expect(p).toMatchObject({ status: 'completed', created: persons.length, rejected: 0 });
    expect(p.linkErrors ?? 0).toBe(0);

    const accounts = sf.state.all('Account');
    expect(accounts.map((r) => String(r.Prospect_Sync_Id__c)).sort()).toEqual(companies);
    const accountIdByKey = new Map(accounts.map((r) => [String(r.Prospect_Sync_Id__c), String(r.Id)]));
    const contacts = sf.state.all('Contact');
    expect(contacts.map((r) => String(r.Prospect_Sync_Id__c)).sort()).toEqual(persons);

    // Every contact points at the Account of its company (read back from the source, not from our code).
    const companyOf = new Map(
      (await fx.oracleRecords('persons', PERSON_FILTER)).map((r) => [String(r.id), String(r.companyId)]),
    );
    for (const c of contacts) {
      expect(c.AccountId).toBe(accountIdByKey.get(companyOf.get(String(c.Prospect_Sync_Id__c)) ?? ''));
    }
  });
});
