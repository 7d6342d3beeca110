/**
 * Preflight before the first token (issue 25): a run (dry runs too) checks the CRM's credentials and schema against
 * the mapping before the walk's first search request, so a bad CRM setup spends no search token; and mapping
 * constants land in HubSpot and in a Salesforce Lead. Real emulators, real clients, real Redis.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syncSearch } from '../../jobs/sync-search.js';
import { startSalesforceEmulator, type SalesforceEmulator } from '../../src/emulators/salesforce/index.js';
import type { RunSummary } from '../../src/runs/run-summary.js';
import { hubspotConfig, salesforceConfigHead, startFixture, type Fixture } from './sync-fixture.js';

const SF = { clientId: 'sf-preflight-client', clientSecret: 'sf-preflight-secret' };
const FILTER = { company: { headcount: { gte: 1, lte: 8 } } };

let fx: Fixture;
let sf: SalesforceEmulator;
beforeAll(async () => {
  fx = await startFixture('preflight');
  sf = await startSalesforceEmulator({ port: 0, clients: [SF] });
  fx.env.SF_LOGIN_URL = sf.url;
  fx.env.SF_CLIENT_SECRET = SF.clientSecret;
});
afterAll(async () => {
  await sf.close();
  await fx.close();
});

const companies = (name: string, fields: string): string => `
  - name: ${name}
    segment: icp
    entity: companies
    filter: {company: {headcount: {gte: 1, lte: 8}}}
    destination: crm
    object: companies
    matchOn: {field: ${name.replaceAll('-', '_')}_id, from: id}
    fields: ${fields}
`;

const leads = (name: string, fields: string): string => `${salesforceConfigHead(SF.clientId)}searches:
  - name: ${name}
    segment: icp
    entity: persons
    filter: {company: {headcount: {gte: 1, lte: 8}}}
    destination: sf
    object: Lead
    matchOn: {from: id}
    fields: ${fields}
`;

/** Runs `search` and returns its summary with the search tokens and search requests the API saw meanwhile. */
async function spent(
  yaml: string,
  search: string,
  dryRun: boolean,
  env: Record<string, string> = {},
): Promise<{ summary: RunSummary; tokens: number; searches: number }> {
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, fx.env[k]!]));
  Object.assign(fx.env, env);
  try {
    const config = fx.config(yaml);
    const before = fx.si.stats('worker');
    const summary = await syncSearch(fx.deps(config), { search, runId: `${search}-1`, dryRun });
    const after = fx.si.stats('worker');
    return {
      summary,
      tokens: after.tokensCharged - before.tokensCharged,
      searches: after.operations.search - before.operations.search,
    };
  } finally {
    Object.assign(fx.env, saved);
  }
}

describe('a bad CRM setup spends no search token', () => {
  it('a dry run with a wrong HubSpot token fails crm_auth_failed before any search request', async () => {
    const { summary, tokens, searches } = await spent(
      hubspotConfig(companies('bad-token', '{name: name}')),
      'bad-token',
      true,
      { HUBSPOT_TOKEN: 'not-the-token' },
    );
    expect(summary).toMatchObject({
      status: 'failed',
      dryRun: true,
      fetched: 0,
      tokensSpent: 0,
      error: { code: 'crm_auth_failed' },
    });
    expect(tokens).toBe(0);
    expect(searches).toBe(0);
    expect(JSON.stringify(summary)).not.toContain('not-the-token');
  });

  it(
    'a dry run mapping a missing, a read-only and a mistyped HubSpot property fails naming each, before any ' +
      'search',
    async () => {
      const fields =
        '{name: name, no_such_property: domain, hs_object_id: id, numberofemployees: {from: name, transform: ' +
        'lowercase}}';
      const { summary, tokens, searches } = await spent(
        hubspotConfig(companies('bad-fields', fields)),
        'bad-fields',
        true,
      );
      expect(summary).toMatchObject({ status: 'failed', error: { code: 'crm_schema_mismatch' } });
      expect(summary.error?.message).toMatch(/companies\.no_such_property does not exist/);
      expect(summary.error?.message).toMatch(/companies\.hs_object_id is read-only/);
      expect(summary.error?.message).toMatch(
        /companies\.numberofemployees is of type number; path name \(transform lowercase\) does not fit/,
      );
      expect(summary.error?.message).not.toMatch(/companies\.name\b/);
      expect(tokens).toBe(0);
      expect(searches).toBe(0);
    },
  );

  it(
    'a run whose onLeave.setFields writes a missing, a read-only or a mistyped HubSpot property fails naming ' +
      'each, before any search',
    async () => {
      const search = `${companies('bad-leave', '{name: name}')}    onLeave:
      setFields: {si_gone: true, hs_object_id: 1, numberofemployees: $now, description: $now, founded_year: null}
`;
      const { summary, tokens, searches } = await spent(hubspotConfig(search), 'bad-leave', false);
      expect(summary).toMatchObject({ status: 'failed', error: { code: 'crm_schema_mismatch' } });
      expect(summary.error?.message).toMatch(/companies\.si_gone \(onLeave\.setFields\) does not exist/);
      expect(summary.error?.message).toMatch(/companies\.hs_object_id \(onLeave\.setFields\) is read-only/);
      expect(summary.error?.message).toMatch(
        /companies\.numberofemployees is of type number; onLeave value "\$now" \(a date-time\) does not fit it/,
      );
      // $now fits a text property; null clears any.
      expect(summary.error?.message).not.toMatch(/description|founded_year/);
      expect(tokens).toBe(0);
      expect(searches).toBe(0);
    },
  );

  it(
    'a run whose onLeave.setFields writes a missing or a mistyped Salesforce field fails naming each, before any ' +
      'search',
    async () => {
      const yaml = `${salesforceConfigHead(SF.clientId)}searches:
  - name: sf-bad-leave
    segment: icp
    entity: companies
    filter: {company: {headcount: {gte: 1, lte: 8}}}
    destination: sf
    object: Account
    matchOn: {from: id}
    fields: {Name: name}
    onLeave:
      setFields: {In_Search__c: false, NumberOfEmployees: $now, Description: $now}
`;
      const { summary, tokens, searches } = await spent(yaml, 'sf-bad-leave', false);
      expect(summary).toMatchObject({ status: 'failed', error: { code: 'crm_schema_mismatch' } });
      expect(summary.error?.message).toMatch(/field Account\.In_Search__c \(onLeave\.setFields\) does not exist/);
      expect(summary.error?.message).toMatch(
        /field Account\.NumberOfEmployees is of type int; onLeave value "\$now" \(a date-time\) does not fit it/,
      );
      expect(summary.error?.message).not.toMatch(/Description/);
      expect(tokens).toBe(0);
      expect(searches).toBe(0);
    },
  );

  it('a dry run with a wrong Salesforce secret fails crm_auth_failed before any search request', async () => {
    const { summary, tokens } = await spent(
      leads('sf-bad-secret', '{LastName: lastName, Company: {value: Unknown}}'),
      'sf-bad-secret',
      true,
      { SF_CLIENT_SECRET: 'not-the-sf-secret' },
    );
    expect(summary).toMatchObject({ status: 'failed', error: { code: 'crm_auth_failed' } });
    expect(tokens).toBe(0);
  });

  it(
    'a Lead search without a value for the required Company, or mapping Lead.Country, fails naming the ' + 'field',
    async () => {
      const { summary, tokens } = await spent(
        leads('sf-no-company', '{LastName: lastName, Country: country}'),
        'sf-no-company',
        true,
      );
      expect(summary).toMatchObject({ status: 'failed', error: { code: 'crm_schema_mismatch' } });
      expect(summary.error?.message).toMatch(/field Lead\.Country does not exist/);
      expect(summary.error?.message).toMatch(/field Lead\.Company is required on create and has no mapping/);
      expect(summary.error?.message).not.toMatch(/Lead\.LastName/);
      expect(tokens).toBe(0);
    },
  );
});

describe('mapping constants land in the CRM', () => {
  it('HubSpot: a text and a number constant on every company of the run', async () => {
    const expected = await fx.oracleIds('companies', FILTER);
    expect(expected.length).toBeGreaterThan(3);
    const fields = '{name: name, description: {value: "Imported by prospect-sync"}, founded_year: {value: 1999}}';
    const { summary } = await spent(hubspotConfig(companies('constants', fields)), 'constants', false);
    expect(summary).toMatchObject({ status: 'completed', created: expected.length, rejected: 0 });
    const landed = [...fx.hubspot!.state.tables.get('companies')!.objects.values()].filter(
      (o) => o.properties.constants_id,
    );
    expect(landed.map((o) => o.properties.constants_id).sort()).toEqual(expected);
    for (const o of landed)
      expect(o.properties).toMatchObject({ description: 'Imported by prospect-sync', founded_year: '1999' });
  });

  it('Salesforce: Leads land with the constant Company the API has no value for', async () => {
    const expected = await fx.oracleIds('persons', FILTER);
    expect(expected.length).toBeGreaterThan(3);
    const { summary } = await spent(
      leads('sf-leads', '{LastName: lastName, Company: {value: Unknown, overwrite: never}}'),
      'sf-leads',
      false,
    );
    expect(summary).toMatchObject({ status: 'completed', created: expected.length, rejected: 0 });
    const landed = sf.state.all('Lead');
    expect(landed.map((r) => String(r.Prospect_Sync_Id__c)).sort()).toEqual(expected);
    for (const r of landed) expect(r.Company).toBe('Unknown');
  });
});
