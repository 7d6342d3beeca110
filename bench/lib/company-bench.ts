/**
 * The setup of an in-process companies benchmark: a Sales-Intelligence emulator and a HubSpot emulator in this
 * process, a parsed config pointing at them (searches from `companySearch`), the worker's Redis under a fresh
 * prefix, and the clean-up. `syncSearch(bench.deps(), …)` then runs a search as the worker does.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { SyncDeps } from '../../jobs/sync-search.js';
import { parseConfig } from '../../src/config/index.js';
import type { AppConfig } from '../../src/config/schema.js';
import { startHubSpotEmulator, type HubSpotEmulator } from '../../src/emulators/hubspot/index.js';
import {
  startSalesIntelEmulator,
  type EmulatorAccount,
  type SalesIntelEmulator,
  type SalesIntelEmulatorOptions,
} from '../../src/emulators/sales-intel/index.js';
import { silentLogger } from '../../src/shared/logger.js';
import { createRedis, deleteKeysUnder } from '../../src/shared/redis.js';

export interface CompanyBenchOptions {
  account: EmulatorAccount;
  /** Emulator options besides the port and the account. */
  salesIntel: Omit<SalesIntelEmulatorOptions, 'port' | 'accounts'>;
  /** YAML lines added under `source:` (two-space indented). */
  source?: string;
  /** The HubSpot emulator's and the destination's requests per 10 s (default: the emulator's own limit). */
  hubspotPer10s?: number;
  /** YAML of the `searches:` list (see `companySearch`). */
  searches: string;
  /** Config file name, for error messages. */
  file: string;
}

export interface CompanyBench {
  si: SalesIntelEmulator;
  hubspot: HubSpotEmulator;
  redis: Redis;
  prefix: string;
  config: AppConfig;
  /** What `syncSearch` needs; `now` moves the run's clock (refresh benchmarks). */
  deps(now?: () => number): SyncDeps;
  /** `prospect_sync_id` of every company in HubSpot. */
  hubspotIds(): string[];
  close(): Promise<void>;
}

/** One companies search into HubSpot's companies, matched on the record id; `extra`: YAML lines of the search. */
export function companySearch(
  name: string,
  extra = '',
  filter = '{company: {headcount: {gte: 1, lte: 1000000}}}',
): string {
  return `
  - name: ${name}
    segment: icp
    entity: companies
    filter: ${filter}
    destination: crm
    object: companies
    matchOn: {field: prospect_sync_id, from: id}
    fields: {name: name, numberofemployees: headcount}
${extra}`;
}

export async function startCompanyBench(options: CompanyBenchOptions): Promise<CompanyBench> {
  const { account } = options;
  const si = await startSalesIntelEmulator({ ...options.salesIntel, port: 0, accounts: [account] });
  const per10s = options.hubspotPer10s;
  const hubspot = await startHubSpotEmulator({
    port: 0,
    accessTokens: ['t'],
    ...(per10s === undefined ? {} : { limits: { perTenSeconds: per10s } }),
  });
  const redis = createRedis(process.env.REDIS_URL);
  const prefix = `ps-bench:${randomUUID().slice(0, 8)}`;
  const yaml = `
source:
  baseUrl: ${si.url}
  auth: {tokenUrl: "${si.tokenUrl}", clientId: ${account.clientId}, clientSecret: "\${S}"}
${options.source ?? ''}
destinations:
  crm: {type: hubspot, accessToken: "\${H}", baseUrl: "${hubspot.url}"${
    per10s === undefined ? '' : `, requestsPer10s: ${per10s}`
  }}
searches:
${options.searches}
`;
  const config = parseConfig(yaml, options.file, { S: account.clientSecret, H: 't' }).config;
  return {
    si,
    hubspot,
    redis,
    prefix,
    config,
    deps: (now) => ({ config, redis, prefix, logger: silentLogger, ...(now ? { now } : {}) }),
    hubspotIds: () =>
      [...(hubspot.state.tables.get('companies')?.objects.values() ?? [])].map((o) =>
        String(o.properties.prospect_sync_id),
      ),
    close: async () => {
      await deleteKeysUnder(redis, prefix).catch(() => undefined);
      redis.disconnect();
      await Promise.all([si.close(), hubspot.close()]);
    },
  };
}
