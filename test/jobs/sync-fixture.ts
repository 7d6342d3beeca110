/**
 * Shared set-up of the sync-job tests: real emulators on port 0, a real Redis under a unique prefix, a config parsed
 * from YAML exactly as users write it, and an independent "oracle" that walks the emulator with plain fetch (its own
 * account, so it never touches the worker's budget) to know which records a run must land.
 */
import { startHubSpotEmulator, type HubSpotEmulator } from '../../src/emulators/hubspot/index.js';
import {
  startSalesIntelEmulator,
  type SalesIntelEmulator,
  type SalesIntelEmulatorOptions,
  type EmulatorAccount,
} from '../../src/emulators/sales-intel/index.js';
import { parseConfig, type AppConfig } from '../../src/config/index.js';
import { silentLogger } from '../../src/shared/logger.js';
import type { SyncDeps } from '../../jobs/sync-search.js';
import { testRedis } from '../helpers/redis.js';
import type { Redis } from 'ioredis';
import type { Job } from 'bullmq';
import type { SyncJobData, SyncJobResult, SyncTrigger } from '../../src/queue/job-data.js';
import { emptyCounts, type RunSummary } from '../../src/runs/run-summary.js';

export const WORKER_ACCOUNT = { clientId: 'worker-client', clientSecret: 'worker-secret', accountId: 'worker' };
const ORACLE_ACCOUNT = { clientId: 'oracle-client', clientSecret: 'oracle-secret', accountId: 'oracle' };
export const HUBSPOT_TOKEN = 'hs-test-token';

export interface FixtureOptions {
  salesIntel?: Omit<SalesIntelEmulatorOptions, 'accounts' | 'port'>;
  /** Package of the worker's account (limits, token allotment, period). */
  account?: Omit<EmulatorAccount, 'clientId' | 'clientSecret' | 'accountId'>;
  hubspot?: boolean;
}

export interface Fixture {
  si: SalesIntelEmulator;
  hubspot: HubSpotEmulator | undefined;
  redis: Redis;
  prefix: string;
  env: Record<string, string>;
  config(yaml: string): AppConfig;
  deps(config: AppConfig): SyncDeps;
  /** Every record matching `filter`, walked independently of the worker (its own account and plain fetch). */
  /** `view`: the segments asked for (contacts are charged to the oracle's account, not the worker's). */
  oracleRecords(entity: 'companies' | 'persons', filter: unknown, view?: string[]): Promise<Record<string, unknown>[]>;
  /** Ids (sorted, unique) of every record matching `filter`. */
  oracleIds(entity: 'companies' | 'persons', filter: unknown, idField?: string): Promise<string[]>;
  close(): Promise<void>;
}

export async function startFixture(label: string, options: FixtureOptions = {}): Promise<Fixture> {
  const { redis, prefix, cleanup } = await testRedis(label);
  const si = await startSalesIntelEmulator({
    companies: 400,
    persons: 1_200,
    ...options.salesIntel,
    port: 0,
    accounts: [{ ...WORKER_ACCOUNT, ...options.account }, { ...ORACLE_ACCOUNT }],
  });
  const hubspot =
    options.hubspot === false ? undefined : await startHubSpotEmulator({ port: 0, accessTokens: [HUBSPOT_TOKEN] });
  const env: Record<string, string> = {
    SI_BASE_URL: si.url,
    SI_TOKEN_URL: si.tokenUrl,
    SI_CLIENT_ID: WORKER_ACCOUNT.clientId,
    SI_CLIENT_SECRET: WORKER_ACCOUNT.clientSecret,
    HUBSPOT_BASE_URL: hubspot?.url ?? 'http://127.0.0.1:9',
    HUBSPOT_TOKEN,
  };
  let oracleToken: string | undefined;
  const oracleLogin = async (): Promise<string> => {
    const res = await fetch(si.tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: ORACLE_ACCOUNT.clientId,
        client_secret: ORACLE_ACCOUNT.clientSecret,
      }),
    });
    return ((await res.json()) as { access_token: string }).access_token;
  };
  const post = async (path: string, body: unknown): Promise<unknown> => {
    oracleToken ??= await oracleLogin();
    let relogged = false;
    for (;;) {
      const res = await fetch(`${si.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${oracleToken}` },
        body: JSON.stringify(body),
      });
      if (res.status === 401 && !relogged) {
        // tokens expired by a fault switch (expireAllTokens): take a new one, once
        relogged = true;
        oracleToken = await oracleLogin();
        continue;
      }
      if (res.status === 429) {
        await new Promise((r) => setTimeout(r, 1000 * Number(res.headers.get('retry-after') ?? 1)));
        continue;
      }
      if (!res.ok) throw new Error(`oracle ${path}: ${res.status} ${await res.text()}`);
      return res.json();
    }
  };
  const oracleRecords = async (
    entity: 'companies' | 'persons',
    filter: unknown,
    view: string[] = [],
  ): Promise<Record<string, unknown>[]> => {
    const records: Record<string, unknown>[] = [];
    let cursor: string | null = null;
    const segments = view.length > 0 ? `&view=${view.join(',')}` : '';
    do {
      const q: string = (cursor ? `?limit=100&cursor=${encodeURIComponent(cursor)}` : '?limit=100') + segments;
      const page = (await post(`/${entity}/filter${q}`, filter)) as {
        data: Record<string, unknown>[];
        page: { nextCursor: string | null };
      };
      records.push(...page.data);
      cursor = page.page.nextCursor;
    } while (cursor);
    return records;
  };
  return {
    si,
    hubspot,
    redis,
    prefix,
    env,
    config: (yaml) => parseConfig(yaml, 'test.yaml', env).config,
    deps: (config) => ({ config, redis, prefix, logger: silentLogger }),
    oracleRecords,
    async oracleIds(entity, filter, idField = 'id') {
      const records = await oracleRecords(entity, filter);
      return [...new Set(records.map((r) => String(r[idField])))].sort();
    },
    async close() {
      await Promise.allSettled([si.close(), hubspot?.close()]);
      await cleanup();
    },
  };
}

/** The `source:` block pointing at the fixture's Sales-Intelligence emulator (the env of `startFixture`). */
export const SOURCE_YAML = `
source:
  baseUrl: \${SI_BASE_URL}
  auth:
    tokenUrl: \${SI_TOKEN_URL}
    clientId: \${SI_CLIENT_ID}
    clientSecret: \${SI_CLIENT_SECRET}`;

/** A config with one HubSpot destination and the given searches (YAML list items, already indented). */
export function hubspotConfig(searches: string, source = ''): string {
  return `${SOURCE_YAML}
  fallbackLimits: {search: 500, count: 500, dictionary: 500, windowSeconds: 60}
${source.includes('pageSize') ? '' : '  pageSize: 50'}
${source}
destinations:
  crm:
    type: hubspot
    accessToken: \${HUBSPOT_TOKEN}
    baseUrl: \${HUBSPOT_BASE_URL}
reveal:
  contactsAllowedSegments: [key-accounts]
searches:
${searches}
`;
}

/**
 * A persons search (`people` unless named) revealing contacts (segment key-accounts) into HubSpot contacts, matched
 * by `prospect_sync_id`; `fields` replaces its mapping; `extra` is more YAML after its fields: keys of the search,
 * each after a newline and 4 spaces.
 */
export function contactsSearch(
  extra = '',
  { name = 'people', fields = 'firstname: firstName, phone: contacts.phone, mobilephone: contacts.mobile' } = {},
): string {
  return `
  - name: ${name}
    segment: key-accounts
    entity: persons
    filter: {company: {headcount: {gte: 1}}}
    view: [contacts]
    destination: crm
    object: contacts
    matchOn: {field: prospect_sync_id, from: id}
    fields: {${fields}}${extra}
`;
}

/** The company search most tests use: every company of the (small) dataset, split by headcount into partitions. */
export const COMPANY_FILTER = { company: { headcount: { gte: 1, lte: 1000000 } } };
/**
 * A companies search over every company (the filter of COMPANY_SEARCH) mapping the name; `extra` is more YAML of the
 * search: lines of `fields:` at 6 spaces first, then keys of the search at 4.
 */
export function companySearch(name: string, extra = ''): string {
  return `
  - name: ${name}
    segment: icp
    entity: companies
    filter:
      company:
        headcount: {gte: 1, lte: 1000000}
    destination: crm
    object: companies
    matchOn: {field: prospect_sync_id, from: id}
    fields:
      name: name
${extra}`;
}

export const COMPANY_SEARCH = companySearch(
  'all-companies',
  `      domain: domain
      numberofemployees: headcount
`,
);

/** A completed run's summary with only its tokens, for seeding a search's run history. */
export function completedRun(search: string, runId: string, tokensSpent: number): RunSummary {
  const at = new Date().toISOString();
  return {
    search,
    status: 'completed',
    ...emptyCounts(),
    tokensSpent,
    durationMs: 1,
    runId,
    startedAt: at,
    finishedAt: at,
    dryRun: false,
    partitions: 1,
  };
}

/** Values of `property` of every object of `type` in the HubSpot emulator, sorted (duplicates kept). */
export function hubspotValues(hubspot: HubSpotEmulator, type: string, property: string): string[] {
  const table = hubspot.state.tables.get(type);
  return [...(table?.objects.values() ?? [])].map((o) => o.properties[property] ?? '').sort();
}

/** The source block plus one Salesforce destination `sf` (secret and login URL from the fixture's env). */
export function salesforceConfigHead(clientId: string, extra = ''): string {
  return `${SOURCE_YAML}
  pageSize: 100
destinations:
  sf:
    type: salesforce
    loginUrl: \${SF_LOGIN_URL}
    clientId: ${clientId}
    clientSecret: \${SF_CLIENT_SECRET}
    externalIdField: Prospect_Sync_Id__c${extra}
`;
}

/** A Salesforce Account search over every company (name and headcount), into the `sf` destination. */
export function salesforceAccountSearch(name: string): string {
  return `  - name: ${name}
    segment: icp
    entity: companies
    filter: {company: {headcount: {gte: 1}}}
    destination: sf
    object: Account
    matchOn: {from: id}
    fields: {Name: name, NumberOfEmployees: headcount}
`;
}

/** A queued job of run `runId` as the worker's processor sees it (its progress and delay calls do nothing). */
export function fakeJob(
  search: string,
  runId: string,
  trigger: SyncTrigger = 'manual',
): Job<SyncJobData, SyncJobResult> {
  return {
    data: { search, runId, trigger, requestedAt: new Date().toISOString() },
    attemptsMade: 0,
    updateProgress: async () => undefined,
    moveToDelayed: async () => undefined,
  } as unknown as Job<SyncJobData, SyncJobResult>;
}
