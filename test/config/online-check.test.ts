/**
 * `validate --online`: the API's credentials, filter values against its dictionaries, and each search's CRM preflight
 * (credentials, mapped fields, required fields), through the real source client, CRM clients and emulators.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHubSpotEmulator, type HubSpotEmulator } from '../../src/emulators/hubspot/index.js';
import { startSalesIntelEmulator, type SalesIntelEmulator } from '../../src/emulators/sales-intel/index.js';
import { startSalesforceEmulator, type SalesforceEmulator } from '../../src/emulators/salesforce/index.js';
import { testRedis } from '../helpers/redis.js';
import { SECRETS } from './config-fixtures.js';
import { runCli, type CliResult } from './run-cli.js';

let emulator: SalesIntelEmulator;
let hubspot: HubSpotEmulator;
let salesforce: SalesforceEmulator;
let redisCtx: Awaited<ReturnType<typeof testRedis>>;
const dir = mkdtempSync(join(tmpdir(), 'ps-online-'));

beforeAll(async () => {
  emulator = await startSalesIntelEmulator({ companies: 200, persons: 400, basePath: '/api/v2' });
  hubspot = await startHubSpotEmulator({ port: 0, accessTokens: [SECRETS.HUBSPOT_TOKEN] });
  salesforce = await startSalesforceEmulator({
    port: 0,
    clients: [{ clientId: 'sf-client', clientSecret: SECRETS.SF_CLIENT_SECRET }],
  });
  redisCtx = await testRedis('config-online');
});

afterAll(async () => {
  await Promise.allSettled([emulator?.close(), hubspot?.close(), salesforce?.close()]);
  await redisCtx?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

const CONFIG = `source:
  baseUrl: \${SI_BASE_URL}
  auth: {tokenUrl: "\${SI_TOKEN_URL}", clientId: demo-client, clientSecret: "\${SI_CLIENT_SECRET}"}
destinations:
  crm: {type: hubspot, accessToken: "\${HUBSPOT_TOKEN}", baseUrl: "\${HUBSPOT_BASE_URL}"}
searches:
  - name: people
    segment: s
    entity: persons
    filter:
      company:
        industry: {include: [software, sofware]}
        location: {country: {include: [DE, XX]}}
      person:
        seniority: {include: [vp]}
        department: {include: [engineering, wizardry]}
    destination: crm
    object: contacts
    matchOn: {field: k, from: id}
    fields: {firstname: firstName}
`;

function cli(file: string, env: Record<string, string> = {}): Promise<CliResult> {
  return runCli(['validate', '--online', '--config', file], {
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    QUEUE_PREFIX: redisCtx.prefix,
    SI_BASE_URL: emulator.url,
    SI_TOKEN_URL: emulator.tokenUrl,
    SI_CLIENT_SECRET: 'demo-secret',
    HUBSPOT_TOKEN: SECRETS.HUBSPOT_TOKEN,
    HUBSPOT_BASE_URL: hubspot.url,
    SF_LOGIN_URL: salesforce.url,
    SF_CLIENT_SECRET: SECRETS.SF_CLIENT_SECRET,
    ...env,
  });
}

describe('validate --online', () => {
  it('names each value missing from its dictionary at its line, exit 2', async () => {
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, CONFIG);
    emulator.resetStats();
    const { code, stderr } = await cli(file);
    expect(stderr.trim().split('\n')).toEqual([
      `${file}:12:40 searches[0].filter.company.industry.include[1]: 'sofware' is not in the industry ` +
        `dictionary; did you mean 'software'? (prospect-sync values industry lists them)`,
      `${file}:13:44 searches[0].filter.company.location.country.include[1]: 'XX' is not in the country ` +
        `dictionary (prospect-sync values country lists them)`,
      `${file}:16:45 searches[0].filter.person.department.include[1]: 'wizardry' is not in the department ` +
        `dictionary (prospect-sync values department lists them)`,
    ]);
    expect(code).toBe(2);
    // industry, country, seniority, department: each dictionary fetched once.
    expect(emulator.stats().operations.dictionary).toBe(4);
  });

  it('exits 0 when every value is in its dictionary', async () => {
    const file = join(dir, 'good.yaml');
    writeFileSync(file, CONFIG.replace(', sofware', '').replace(', XX', '').replace(', wizardry', ''));
    const { code, stdout, stderr } = await cli(file);
    expect(stderr).toBe('');
    expect(stdout).toContain('filter values checked against the API dictionaries');
    expect(code).toBe(0);
  });

  it("accepts the example config's filter values", async () => {
    const { code, stderr } = await cli('config/demo.yaml');
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });
});

/** One HubSpot companies search and one Salesforce Lead search, without dictionary filters. */
const CRM_CONFIG = `source:
  baseUrl: \${SI_BASE_URL}
  auth: {tokenUrl: "\${SI_TOKEN_URL}", clientId: demo-client, clientSecret: "\${SI_CLIENT_SECRET}"}
destinations:
  crm: {type: hubspot, accessToken: "\${HUBSPOT_TOKEN}", baseUrl: "\${HUBSPOT_BASE_URL}"}
  sf:
    type: salesforce
    loginUrl: \${SF_LOGIN_URL}
    clientId: sf-client
    clientSecret: \${SF_CLIENT_SECRET}
searches:
  - name: companies
    segment: s
    entity: companies
    filter: {company: {headcount: {gte: 10}}}
    destination: crm
    object: companies
    matchOn: {field: prospect_sync_id, from: id}
    fields:
      name: name
      domain: domain
  - name: leads
    segment: s
    entity: persons
    filter: {company: {headcount: {gte: 10}}}
    destination: sf
    object: Lead
    matchOn: {field: Prospect_Sync_Id__c, from: id}
    fields:
      LastName: lastName
      Company: {value: Unknown}
`;

describe('validate --online: credentials and CRM preflight, no search request', () => {
  const write = (name: string, text: string): string => {
    const file = join(dir, name);
    writeFileSync(file, text);
    return file;
  };

  it(
    'exits 0 for a mapping both CRMs can take, with a constant for the required Lead.Company; no search, no token ' +
      'spent',
    async () => {
      emulator.resetStats();
      const { code, stdout, stderr } = await cli(write('crm-good.yaml', CRM_CONFIG));
      expect(stderr).toBe('');
      expect(stdout).toContain('CRM fields checked');
      expect(code).toBe(0);
      expect(emulator.stats().requests.token).toBeGreaterThan(0);
      expect(emulator.stats().operations.search).toBe(0);
      expect(emulator.stats().tokensCharged).toBe(0);
    },
  );

  it('names a wrong API secret at its line, exit 2 (no dictionary filter to look up)', async () => {
    const file = write('crm-si.yaml', CRM_CONFIG);
    const { code, stderr } = await cli(file, { SI_CLIENT_SECRET: 'not-the-si-secret' });
    expect(stderr.trim()).toBe(
      `${file}:3:76 source.auth.clientSecret: the token endpoint refused the client credentials (invalid_client): ` +
        'check SI_CLIENT_SECRET (source.auth.clientSecret)',
    );
    expect(code).toBe(2);
  });

  it(
    'names a wrong HubSpot token and a wrong Salesforce secret at their lines, exit 2, never the ' + 'secrets',
    async () => {
      const file = write('crm-auth.yaml', CRM_CONFIG);
      const { code, stderr } = await cli(file, {
        HUBSPOT_TOKEN: 'not-the-hub-token',
        SF_CLIENT_SECRET: 'not-the-sf-secret',
      });
      const lines = stderr.trim().split('\n');
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatch(
        new RegExp(
          `^${file}:5:\\d+ destinations\\.crm\\.accessToken: HubSpot refused the access token \\(401\\): ` +
            'check HUBSPOT_TOKEN \\(destinations\\.crm\\.accessToken\\)$',
        ),
      );
      expect(lines[1]).toMatch(
        new RegExp(
          `^${file}:10:\\d+ destinations\\.sf\\.clientSecret: Salesforce authentication failed: .*invalid_client.*: ` +
            'check SF_CLIENT_SECRET \\(destinations\\.sf\\.clientSecret\\)$',
        ),
      );
      expect(stderr).not.toMatch(/not-the-hub-token|not-the-sf-secret/);
      expect(code).toBe(2);
    },
  );

  it('names the _FILE variable a refused HubSpot token was read from, never the token', async () => {
    const file = write('crm-auth-file.yaml', CRM_CONFIG);
    const secretFile = join(dir, 'hubspot-token');
    writeFileSync(secretFile, 'not-the-hub-token\n');
    const { code, stderr } = await cli(file, { HUBSPOT_TOKEN: '', HUBSPOT_TOKEN_FILE: secretFile });
    expect(stderr.trim()).toMatch(
      /HubSpot refused the access token \(401\): check HUBSPOT_TOKEN_FILE \(destinations\.crm\.accessToken\)$/,
    );
    expect(stderr).not.toContain('not-the-hub-token');
    expect(code).toBe(2);
  });

  it('names a mapped field the CRM lacks and a required field without a mapping at their lines, exit 2', async () => {
    const bad = CRM_CONFIG.replace(
      '      domain: domain\n',
      '      domain: domain\n      no_such_property: name\n',
    ).replace('      Company: {value: Unknown}\n', '      Country: country\n');
    const file = write('crm-fields.yaml', bad);
    const { code, stderr } = await cli(file);
    expect(stderr.trim().split('\n')).toEqual([
      `${file}:22:25 searches[0].fields.no_such_property: property companies.no_such_property does not exist ` +
        `(create it in HubSpot or fix the mapping)`,
      `${file}:32:16 searches[1].fields.Country: field Lead.Country does not exist (create it in Salesforce or ` +
        `fix the mapping)`,
      `${file}:28:13 searches[1].object: field Lead.Company is required on create and has no mapping: map it or ` +
        `give it a constant ({value: ...})`,
    ]);
    expect(code).toBe(2);
  });

  it('names a constant with a time of day for a HubSpot date property at its line, exit 2', async () => {
    const created = await fetch(`${hubspot.url}/crm/v3/properties/companies`, {
      method: 'POST',
      headers: { authorization: `Bearer ${SECRETS.HUBSPOT_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'checked_on', label: 'c', type: 'date', fieldType: 'date', groupName: 'g' }),
    });
    expect(created.status).toBe(201);
    const bad = CRM_CONFIG.replace(
      '      domain: domain\n',
      '      domain: domain\n      checked_on: {value: "2026-11-27T10:00:00Z"}\n',
    );
    const file = write('crm-date.yaml', bad);
    const { code, stderr } = await cli(file);
    expect(stderr.trim().split('\n')).toEqual([
      `${file}:22:19 searches[0].fields.checked_on: property companies.checked_on is of type date; the constant ` +
        '"2026-11-27T10:00:00Z" does not fit it (a date field holds a day: YYYY-MM-DD, or epoch milliseconds at ' +
        'midnight UTC)',
    ]);
    expect(code).toBe(2);
  });

  it(
    "names an Accounts list on an org without Accounts as Campaign Members at the search's list:, saying what the " +
      'org can do',
    async () => {
      const accounts = `  - name: accounts
    segment: s
    entity: companies
    filter: {company: {headcount: {gte: 10}}}
    destination: sf
    object: Account
    matchOn: {field: Prospect_Sync_Id__c, from: id}
    fields: {Name: name}
    list: {name: ICP accounts}
`;
      const file = write('crm-account-list.yaml', `${CRM_CONFIG}${accounts}`);
      const { code, stderr } = await cli(file);
      expect(stderr.trim().split('\n')).toEqual([
        `${file}:40:11 searches[2].list: list "ICP accounts" holds Accounts, but this org does not take Accounts ` +
          `as campaign members (CampaignMember has no createable AccountId): enable "Accounts as Campaign Members" ` +
          `in Setup > Campaign Settings, or drop list: and mark the search's Accounts with a field instead (onLeave: ` +
          `{setFields: {...}} and a mapped constant such as si_search_<name>__c: {value: true})`,
      ]);
      expect(code).toBe(2);
    },
  );

  it('names an onLeave.setFields field the CRM lacks at its line, exit 2, no search, no token spent', async () => {
    const bad = CRM_CONFIG.replace(
      '      domain: domain\n',
      '      domain: domain\n    onLeave:\n      setFields: {si_gone: true}\n',
    );
    const file = write('crm-leave.yaml', bad);
    emulator.resetStats();
    const { code, stderr } = await cli(file);
    expect(stderr.trim().split('\n')).toEqual([
      `${file}:23:28 searches[0].onLeave.setFields.si_gone: property companies.si_gone (onLeave.setFields) does ` +
        `not exist (create it in HubSpot or fix onLeave)`,
    ]);
    expect(code).toBe(2);
    expect(emulator.stats().operations.search).toBe(0);
    expect(emulator.stats().tokensCharged).toBe(0);
  });
});
