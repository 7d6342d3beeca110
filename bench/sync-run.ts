/**
 * One whole run (count, partition, walk, map, change detection, HubSpot upsert, checkpoints) against the emulators
 * with 200 ms page latency, as a ratio of the API's ceiling (search limit x 100 records per window). The window is
 * compressed (20 searches / 2 s = the documented 500 / 60 s scaled to a bench) so a run spans many windows and a
 * burst inside one window cannot flatter the ratio. Also: 429s received and worker CPU per 1,000 records.
 * Run: npx tsx bench/sync-run.ts [records≈10000]
 */
import { randomUUID } from 'node:crypto';
import { syncSearch } from '../jobs/sync-search.js';
import { parseConfig } from '../src/config/index.js';
import { startHubSpotEmulator } from '../src/emulators/hubspot/index.js';
import { startSalesIntelEmulator } from '../src/emulators/sales-intel/index.js';
import { silentLogger } from '../src/shared/logger.js';
import { createRedis, deleteKeysUnder } from '../src/shared/redis.js';

const LIMIT = 20;
const WINDOW_S = 2;
const target = Number(process.argv[2] ?? 10_000);

const account = {
  clientId: 'bench-client',
  clientSecret: 'bench-secret',
  accountId: 'bench',
  limits: { search: LIMIT, count: LIMIT, dictionary: LIMIT },
};
const si = await startSalesIntelEmulator({
  port: 0,
  companies: Math.max(target, 1000),
  windowSeconds: WINDOW_S,
  accounts: [account],
  faults: { latency: { fixedMs: 200, jitterMs: 0 } },
});
const hubspot = await startHubSpotEmulator({ port: 0, accessTokens: ['bench-token'], limits: { perTenSeconds: 190 } });
const em = {
  env: {
    SI_BASE_URL: si.url,
    SI_TOKEN_URL: si.tokenUrl,
    SI_CLIENT_ID: account.clientId,
    SI_CLIENT_SECRET: account.clientSecret,
    HUBSPOT_BASE_URL: hubspot.url,
    HUBSPOT_TOKEN: 'bench-token',
  },
  salesIntel: si,
  hubspot,
  close: () => Promise.all([si.close(), hubspot.close()]),
};
const redis = createRedis(process.env.REDIS_URL);
const prefix = `ps-bench:${randomUUID().slice(0, 8)}`;
const yaml = (parallelism: number): string => `
source:
  baseUrl: ${em.env.SI_BASE_URL}
  auth: {tokenUrl: "${em.env.SI_TOKEN_URL}", clientId: ${em.env.SI_CLIENT_ID}, clientSecret: "\${SI_CLIENT_SECRET}"}
  parallelism: ${parallelism}
  fallbackLimits: {search: ${LIMIT}, count: ${LIMIT}, dictionary: ${LIMIT}, windowSeconds: ${WINDOW_S}}
destinations:
  crm: {type: hubspot, accessToken: "\${HUBSPOT_TOKEN}", baseUrl: "${em.env.HUBSPOT_BASE_URL}", requestsPer10s: 190}
searches:
  - name: bench-p${parallelism}
    segment: icp
    entity: companies
    filter: {company: {headcount: {gte: 1}}}
    maxRecords: ${target}
    destination: crm
    object: companies
    matchOn: {field: prospect_sync_id_p${parallelism}, from: id}
    fields: {name: name, domain: domain, numberofemployees: headcount}
`;

try {
  for (const parallelism of [1, 4]) {
    const config = parseConfig(yaml(parallelism), 'bench.yaml', {
      SI_CLIENT_SECRET: em.env.SI_CLIENT_SECRET,
      HUBSPOT_TOKEN: em.env.HUBSPOT_TOKEN,
    }).config;
    // maxRecords below the count walks sequentially; lift the cap so partitions run in parallel over ~target records
    const search = config.searches[0]!;
    search.maxRecords = undefined;
    search.filter = { company: { headcount: { gte: 1, lte: await headcountFor(target) } } };
    em.salesIntel.resetStats();
    const cpu0 = process.cpuUsage();
    const t0 = Date.now();
    let planned = t0;
    const summary = await syncSearch(
      { config, redis, prefix, logger: silentLogger },
      {
        search: search.name,
        runId: randomUUID(),
        onPlan: () => {
          planned = Date.now();
        },
      },
    );
    const cpu = process.cpuUsage(cpu0);
    const perSecond = summary.fetched / (summary.durationMs / 1000);
    const walkPerSecond = summary.fetched / ((Date.now() - planned) / 1000);
    const ceiling = (LIMIT * 100) / WINDOW_S;
    console.log(
      `parallelism ${parallelism}: ${summary.status}, ${summary.fetched} records ` +
        `in ${(summary.durationMs / 1000).toFixed(1)} s = ${perSecond.toFixed(0)} records/s; ` +
        `ceiling ${ceiling.toFixed(0)} records/s -> ratio ${(perSecond / ceiling).toFixed(2)} (walk only, after ` +
        `the ${((planned - t0) / 1000).toFixed(1)} s plan: ${(walkPerSecond / ceiling).toFixed(2)}); ` +
        `partitions ${summary.partitions}; ` +
        `429s ${summary.throttled}; HubSpot 429s ${em.hubspot.stats.throttled.TEN_SECONDLY_ROLLING}; ` +
        `worker CPU ${((cpu.user + cpu.system) / 1000 / (summary.fetched / 1000)).toFixed(1)} ms per 1,000 ` +
        `records (in-process emulators included)`,
    );
  }
} finally {
  await deleteKeysUnder(redis, prefix);
  redis.disconnect();
  await em.close();
}

/** The smallest headcount upper bound whose count reaches `n` (bisection on free counts against the emulator). */
async function headcountFor(n: number): Promise<number> {
  const token = (
    (await (
      await fetch(em.env.SI_TOKEN_URL, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: em.env.SI_CLIENT_ID,
          client_secret: em.env.SI_CLIENT_SECRET,
        }),
      })
    ).json()) as { access_token: string }
  ).access_token;
  const count = async (lte: number): Promise<number> =>
    (
      (await (
        await fetch(`${em.env.SI_BASE_URL}/companies/filter/count`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body: JSON.stringify({ company: { headcount: { gte: 1, lte } } }),
        })
      ).json()) as { total: number }
    ).total;
  let lo = 1;
  let hi = 100_000;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if ((await count(mid)) >= n) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}
