/**
 * `maxRecords` costs what it lands (issue 34, item 3): a companies search of N matches capped at M records, the live
 * index churning between pages, into HubSpot. Prints tokens charged by the API, search requests, fetched / unique,
 * distinct companies in HubSpot, and tokens per record kept.
 * Run: REDIS_URL=redis://127.0.0.1:6379/2 npx tsx bench/max-records.ts [companies=6237] [maxRecords=500] [insertPerPage=1] [removePerPage=1] [runs=3]
 */
import { randomUUID } from 'node:crypto';
import { syncSearch } from '../jobs/sync-search.js';
import { parseConfig } from '../src/config/index.js';
import { startHubSpotEmulator } from '../src/emulators/hubspot/index.js';
import { startSalesIntelEmulator } from '../src/emulators/sales-intel/index.js';
import { silentLogger } from '../src/shared/logger.js';
import { createRedis, deleteKeysUnder } from '../src/shared/redis.js';

const N = Number(process.argv[2] ?? 6237);
const MAX = Number(process.argv[3] ?? 500);
const INSERT = Number(process.argv[4] ?? 1);
const REMOVE = Number(process.argv[5] ?? 1);
const RUNS = Number(process.argv[6] ?? 3);
const account = { clientId: 'm-client', clientSecret: 'm-secret', accountId: 'm' };
const results: Record<string, unknown>[] = [];
for (let r = 0; r < RUNS; r++) {
  const si = await startSalesIntelEmulator({ port: 0, companies: N, seed: 1 + r, accounts: [account] });
  si.faults.set({ churn: { insertPerPage: INSERT, removePerPage: REMOVE } });
  const hubspot = await startHubSpotEmulator({ port: 0, accessTokens: ['t'] });
  const redis = createRedis(process.env.REDIS_URL);
  const prefix = `ps-bench:${randomUUID().slice(0, 8)}`;
  const yaml = `
source:
  baseUrl: ${si.url}
  auth: {tokenUrl: "${si.tokenUrl}", clientId: ${account.clientId}, clientSecret: "\${S}"}
${process.env.SOURCE_YAML ?? ''}
destinations:
  crm: {type: hubspot, accessToken: "\${H}", baseUrl: "${hubspot.url}"}
searches:
  - name: capped
    segment: icp
    entity: companies
    filter: {company: {headcount: {gte: ${process.env.GTE ?? 1}, lte: ${process.env.LTE ?? 1000000}}}${
      process.env.MODE === 'offset' ? ', options: {sortFields: [{field: headcount, direction: DESC}]}' : ''
    }}
    mode: ${process.env.MODE ?? 'cursor'}
    maxRecords: ${MAX}
    destination: crm
    object: companies
    matchOn: {field: prospect_sync_id, from: id}
    fields: {name: name, numberofemployees: headcount}
`;
  const config = parseConfig(yaml, 'capped.yaml', { S: account.clientSecret, H: 't' }).config;
  try {
    const s = await syncSearch({ config, redis, prefix, logger: silentLogger }, { search: 'capped', runId: 'r1' });
    const ids = [...(hubspot.state.tables.get('companies')?.objects.values() ?? [])].map((o) =>
      String(o.properties.prospect_sync_id),
    );
    const stats = si.stats('m');
    const row = {
      status: s.status,
      limitedBy: s.limitedBy,
      counted: s.counted,
      tokens: stats.tokensCharged,
      searches: stats.operations.search,
      fetched: s.fetched,
      unique: s.unique,
      inHubSpot: new Set(ids).size,
      repeats: si.faults.churnLog().inserted.length,
      partitions: s.partitions,
      tokensPerRecord: +(stats.tokensCharged / Math.max(1, new Set(ids).size)).toFixed(3),
    };
    results.push(row);
    console.log(JSON.stringify(row));
  } finally {
    await deleteKeysUnder(redis, prefix).catch(() => undefined);
    redis.disconnect();
    await Promise.all([si.close(), hubspot.close()]);
  }
}
console.log(JSON.stringify({ N, maxRecords: MAX, insertPerPage: INSERT, removePerPage: REMOVE, runs: results.length }));
