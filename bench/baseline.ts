/**
 * Baseline in the same run: prospect-sync (the compiled CLI in its own process) vs. a naive loop
 * (bench/lib/naive-sync.ts: sequential cursor pages, one HubSpot call per page, fixed sleep on 429) over the same
 * data, at 200 ms and at 600 ms page latency, API at 500 searches / 60 s kept as 83 / 10 s, HubSpot 190 / 10 s.
 * Each side gets a fresh emulator host (same seed, same data). Ours is timed from process start (start-up, count and
 * partitioning included); the naive loop from its first request.
 * Run: npx tsx bench/baseline.ts [records=20000] [latencies=200,600]
 */
import { writeFileSync } from 'node:fs';
import type { RunSummary } from '../src/runs/run-summary.js';
import { createRedis, deleteKeysUnder } from '../src/shared/redis.js';
import { companiesSearch, HUBSPOT_TOKEN, REDIS_URL, SI_CLIENT, writeBenchConfig } from './lib/bench-config.js';
import { startEmulatorHost, type EmulatorHost } from './lib/emulator-host-client.js';
import { load, machine } from './lib/machine.js';
import { naiveSync } from './lib/naive-sync.js';
import { ensureBuilt, lastJson, startWorker } from './lib/worker-process.js';

const RECORDS = Number(process.argv[2] ?? 20_000);
const LATENCIES = (process.argv[3] ?? '200,600').split(',').map(Number);
const LIMIT = 83;
const WINDOW_S = 10;
const CEILING = (LIMIT * 100) / WINDOW_S;
const out: Record<string, unknown>[] = [];

ensureBuilt();
console.log(`machine: ${machine()}; ${load()} at start`);
const redis = createRedis(REDIS_URL);

const newHost = (latencyMs: number): Promise<EmulatorHost> =>
  startEmulatorHost({
    salesIntel: {
      companies: RECORDS,
      persons: 1000,
      windowSeconds: WINDOW_S,
      faults: { latency: { fixedMs: latencyMs, jitterMs: 0 } },
      accounts: [{ ...SI_CLIENT, limits: { search: LIMIT, count: LIMIT, dictionary: LIMIT } }],
    },
    hubspot: { accessTokens: [HUBSPOT_TOKEN], limits: { perTenSeconds: 190, daily: 10_000_000 } },
  });

for (const latency of LATENCIES) {
  const naiveHost = await newHost(latency);
  let naive;
  try {
    naive = await naiveSync({
      apiUrl: naiveHost.salesIntel.url,
      tokenUrl: naiveHost.salesIntel.tokenUrl,
      clientId: SI_CLIENT.clientId,
      clientSecret: SI_CLIENT.clientSecret,
      hubspotUrl: naiveHost.hubspot!,
      hubspotToken: HUBSPOT_TOKEN,
    });
    const s = await naiveHost.stats();
    if (s.hubspot?.stored.companies !== naive.records)
      throw new Error(`naive: HubSpot holds ${s.hubspot?.stored.companies} of ${naive.records}`);
  } finally {
    await naiveHost.stop();
  }
  const loadNaive = load();
  const host = await newHost(latency);
  const cfg = writeBenchConfig(host, {
    name: 'baseline',
    limits: { search: LIMIT, windowSeconds: WINDOW_S },
    searches: [companiesSearch('baseline', 'hs', 'companies')],
  });
  try {
    const r = await startWorker(['run', 'baseline', '--json', '--config', cfg.file], cfg.env).done;
    const s = lastJson<RunSummary>(r.stdout);
    const stats = await host.stats();
    const ours = s.fetched / (r.wallMs / 1000);
    const theirs = naive.records / naive.seconds;
    const f = {
      latencyMs: latency,
      records: s.fetched,
      status: s.status,
      ours: {
        seconds: Number((r.wallMs / 1000).toFixed(1)),
        recordsPerSecond: Math.round(ours),
        ofCeiling: Number((ours / CEILING).toFixed(3)),
        api429: stats.salesIntel.served429.search,
        hubspot429: stats.hubspot?.throttled.TEN_SECONDLY_ROLLING,
        stored: stats.hubspot?.stored.companies,
      },
      naive: {
        seconds: Number(naive.seconds.toFixed(1)),
        recordsPerSecond: Math.round(theirs),
        ofCeiling: Number((theirs / CEILING).toFixed(3)),
        api429: naive.api429,
        hubspot429: naive.hubspot429,
        pages: naive.pages,
      },
      speedup: Number((ours / theirs).toFixed(2)),
      load: `${loadNaive} (after naive), ${load()} (after ours)`,
    };
    console.log(JSON.stringify(f));
    out.push(f);
  } finally {
    await deleteKeysUnder(redis, cfg.prefix);
    await host.stop();
  }
}
redis.disconnect();
if (process.env.BENCH_OUT) writeFileSync(process.env.BENCH_OUT, JSON.stringify(out, null, 1));
