/**
 * Scale-out: 1, 2 and 4 worker processes (`prospect-sync worker`, the compiled CLI) sharing one API account and one
 * HubSpot portal through the queue, several searches at once (the companies split into disjoint headcount ranges,
 * all enqueued together). Per worker count: records/s over the API ceiling, the highest request count of any one
 * window as the emulators count it (API search and count: fixed 10 s windows; HubSpot: rolling 10 s), 429s, and each
 * worker's CPU and peak RSS. API at 500 / 60 s kept as 83 / 10 s, page latency 150-300 ms, HubSpot 190 / 10 s.
 * Run: npx tsx bench/scale-out.ts [companies=100000] [searches=4] [workers=1,2,4] [rate=83/10]
 * (`rate` = searches per window / window seconds, e.g. 500/60 for the documented package in its real window).
 */
import { writeFileSync } from 'node:fs';
import { openQueues, enqueueRun } from '../src/queue/index.js';
import { listRuns } from '../src/runs/run-history.js';
import type { RunSummary } from '../src/runs/run-summary.js';
import { createRedis, deleteKeysUnder } from '../src/shared/redis.js';
import { companiesSearch, HUBSPOT_TOKEN, REDIS_URL, SI_CLIENT, writeBenchConfig } from './lib/bench-config.js';
import { startEmulatorHost, type EmulatorHost } from './lib/emulator-host-client.js';
import { load, machine } from './lib/machine.js';
import { ensureBuilt, startWorker } from './lib/worker-process.js';

const COMPANIES = Number(process.argv[2] ?? 100_000);
const SEARCHES = Number(process.argv[3] ?? 4);
const WORKERS = (process.argv[4] ?? '1,2,4').split(',').map(Number);
const [LIMIT, WINDOW_S] = (process.argv[5] ?? '83/10').split('/').map(Number) as [number, number];
const CEILING = (LIMIT * 100) / WINDOW_S;
const out: Record<string, unknown>[] = [];

ensureBuilt();
console.log(`machine: ${machine()}; ${load()} at start`);
const redis = createRedis(REDIS_URL);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

const newHost = (): Promise<EmulatorHost> =>
  startEmulatorHost({
    salesIntel: {
      companies: COMPANIES,
      persons: 1000,
      windowSeconds: WINDOW_S,
      faults: { latency: { fixedMs: 150, jitterMs: 150 } },
      accounts: [{ ...SI_CLIENT, limits: { search: LIMIT, count: LIMIT, dictionary: LIMIT } }],
    },
    hubspot: { accessTokens: [HUBSPOT_TOKEN], limits: { perTenSeconds: 190, daily: 10_000_000 } },
  });

/** Headcount bounds splitting the companies into `parts` ranges of about equal count (bisection on free counts). */
async function headcountSplits(host: EmulatorHost, parts: number): Promise<{ gte: number; lte?: number }[]> {
  const tokenRes = await fetch(host.salesIntel.tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: SI_CLIENT.clientId,
      client_secret: SI_CLIENT.clientSecret,
    }),
  });
  const token = ((await tokenRes.json()) as { access_token: string }).access_token;
  const count = async (lte: number): Promise<number> => {
    for (;;) {
      const res = await fetch(`${host.salesIntel.url}/companies/filter/count`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ company: { headcount: { gte: 0, lte } } }),
      });
      if (res.status === 429) {
        await sleep(1000);
        continue;
      }
      return ((await res.json()) as { total: number }).total;
    }
  };
  const total = await count(100_000_000);
  const bounds: number[] = [];
  for (let k = 1; k < parts; k++) {
    let lo = bounds.at(-1) ?? 0;
    let hi = 10_000_000;
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      if ((await count(mid)) >= (total * k) / parts) hi = mid;
      else lo = mid + 1;
    }
    bounds.push(lo);
  }
  return Array.from({ length: parts }, (_, k) => ({
    gte: k === 0 ? 0 : bounds[k - 1]! + 1,
    ...(k < parts - 1 ? { lte: bounds[k]! } : {}),
  }));
}

for (const workers of WORKERS) {
  const host = await newHost();
  const ranges = await headcountSplits(host, SEARCHES);
  const names = ranges.map((_, k) => `part-${k + 1}`);
  const cfg = writeBenchConfig(host, {
    name: `scale-${workers}-${WINDOW_S}s`,
    limits: { search: LIMIT, windowSeconds: WINDOW_S },
    concurrency: 2,
    searches: ranges.map((h, k) => companiesSearch(names[k]!, 'hs', 'companies', { company: { headcount: h } })),
  });
  const queues = openQueues({ connection: redis, prefix: cfg.prefix });
  // Warnings and errors of the workers are kept (stderr) and printed for a run that did not complete.
  const procs = Array.from({ length: workers }, () =>
    startWorker(['worker', '--config', cfg.file], { ...cfg.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' }),
  );
  try {
    // Ready when every process has registered its BullMQ worker.
    for (let i = 0; i < 120 && (await queues.sync.getWorkersCount()) < workers; i++) await sleep(250);
    const w = WINDOW_S * 1000;
    await sleep(Math.ceil(Date.now() / w) * w - Date.now() + 5);
    await host.reset();
    const loadBefore = load();
    const t0 = Date.now();
    const jobs = new Map<string, string>();
    for (const name of names) jobs.set(name, (await enqueueRun(queues.sync, name, 'manual')).jobId);
    // A run is over when its job is completed or failed for good (a failed attempt is retried by BullMQ and
    // recorded in the run history too): every attempt's summary is kept, the newest is the run's outcome.
    const finished = new Map<string, number>();
    while (finished.size < names.length) {
      await sleep(500);
      for (const [name, jobId] of jobs) {
        if (finished.has(name)) continue;
        const state = await queues.sync.getJobState(jobId);
        if (state === 'completed' || state === 'failed') finished.set(name, Date.now());
      }
      if (Date.now() - t0 > 30 * 60_000) throw new Error('scale-out: runs did not finish within 30 minutes');
    }
    const attempts = new Map<string, RunSummary[]>();
    for (const name of names) attempts.set(name, await listRuns(redis, name, { prefix: cfg.prefix, limit: 50 }));
    const seconds = (Math.max(...[...attempts.values()].map((a) => Date.parse(a[0]!.finishedAt))) - t0) / 1000;
    const stats = await host.stats();
    const results = await Promise.all(procs.map((p) => p.stop()));
    const runs = [...attempts.values()].map((a) => a[0]!);
    const earlier = [...attempts.values()].flatMap((a) => a.slice(1));
    // Records landed: what HubSpot holds (unique); the summaries count per attempt.
    const fetched = stats.hubspot!.stored.companies;
    const f = {
      workers,
      rate: `${LIMIT} searches / ${WINDOW_S} s`,
      searches: names.length,
      statuses: runs.map((s) => s.status),
      attempts: runs.length + earlier.length,
      errors: [...runs, ...earlier]
        .filter((s) => s.error)
        .map((s) => ({ search: s.search, status: s.status, fetched: s.fetched, error: s.error })),
      records: fetched,
      seconds: Number(seconds.toFixed(1)),
      recordsPerSecond: Math.round(fetched / seconds),
      ceiling: CEILING,
      ratio: Number((fetched / seconds / CEILING).toFixed(3)),
      api: {
        peakSearchesPerWindow: stats.salesIntel.peakPerWindow.search,
        peakCountsPerWindow: stats.salesIntel.peakPerWindow.count,
        limit: LIMIT,
        served429: stats.salesIntel.served429,
        searches: stats.salesIntel.operations.search,
      },
      hubspot: {
        peakPerRolling10s: stats.hubspot!.peakPerWindow,
        limit: 190,
        served429: stats.hubspot!.throttled.TEN_SECONDLY_ROLLING,
        stored: stats.hubspot!.stored.companies,
      },
      tokensPerRecord: Number(([...runs, ...earlier].reduce((n, s) => n + s.tokensSpent, 0) / fetched).toFixed(3)),
      workerCpuMs: results.map((r) => Math.round(r.usage.cpuMs)),
      workerMaxRssMb: results.map((r) => Math.round(r.usage.maxRssMb)),
      loadBefore,
      loadAfter: load(),
    };
    console.log(JSON.stringify(f));
    out.push(f);
    for (const s of [...runs, ...earlier].filter((r) => r.status !== 'completed')) {
      console.log(`  ${s.search}: ${s.status} after ${s.fetched} records: ${JSON.stringify(s.error ?? s.stopReason)}`);
    }
    if ([...runs, ...earlier].some((r) => r.status !== 'completed')) {
      results.forEach((r, i) =>
        console.log(`  worker ${i + 1} stderr (last 3,000 characters):\n${r.stderr.slice(-3000)}`),
      );
    }
  } finally {
    await Promise.all(procs.map((p) => p.stop()));
    await queues.close();
    await deleteKeysUnder(redis, cfg.prefix);
    await host.stop();
  }
}
redis.disconnect();
if (process.env.BENCH_OUT) writeFileSync(process.env.BENCH_OUT, JSON.stringify(out, null, 1));
