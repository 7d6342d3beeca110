/**
 * Refresh on change, quickly: a companies search of N records in refresh mode `changed`, run once a day (the run's
 * clock moved a day each time) for D days while a share of the companies changes headcount each day (every change
 * moves a partition count: the worst case for the re-count). Prints each run's tokens as a share of a full walk,
 * its counts and walked partitions, and the mean share. The 30-day, 5-search benchmark of issue 24 is another.
 * Run: REDIS_URL=redis://127.0.0.1:6379/11 npx tsx bench/refresh-share.ts [companies=20000] [churn=0.001] [days=14]
 * [maxAgeDays=14] [maxCounts=500]
 */
import { syncSearch } from '../jobs/sync-search.js';
import { companySearch, startCompanyBench } from './lib/company-bench.js';

const N = Number(process.argv[2] ?? 20_000);
const CHURN = Number(process.argv[3] ?? 0.001);
const DAYS = Number(process.argv[4] ?? 14);
const MAX_AGE = Number(process.argv[5] ?? 14);
const MAX_COUNTS = Number(process.argv[6] ?? 500);
const bench = await startCompanyBench({
  account: {
    clientId: 'm-client',
    clientSecret: 'm-secret',
    accountId: 'm',
    limits: { search: 2000, count: 2000, dictionary: 500 },
  },
  salesIntel: { companies: N },
  hubspotPer10s: 1000,
  source: `  fallbackLimits: {search: 2000, count: 2000, dictionary: 500, windowSeconds: 60}
  refresh: {mode: changed, maxAgeDays: ${MAX_AGE}, maxCounts: ${MAX_COUNTS}}`,
  searches: companySearch('m'),
  file: 'm.yaml',
});
const { si } = bench;
let now = Date.parse('2026-03-01T06:00:00Z');
const deps = bench.deps(() => now);
let seed = 7;
const rand = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
try {
  const t0 = Date.now();
  const first = await syncSearch(deps, { search: 'm', runId: 'd0' });
  console.log(
    JSON.stringify({
      day: 0,
      tokens: first.tokensSpent,
      counted: first.counted,
      partitions: first.partitions,
      refresh: first.refresh,
      ms: Date.now() - t0,
    }),
  );
  const ids = bench.hubspotIds();
  let total = 0;
  for (let day = 1; day <= DAYS; day++) {
    now += 24 * 3600_000;
    const k = Math.round(N * CHURN);
    for (let i = 0; i < k; i++)
      si.setCompanyHeadcount(ids[Math.floor(rand() * ids.length)]!, 1 + Math.floor(rand() * 5000));
    const t = Date.now();
    const s = await syncSearch(deps, { search: 'm', runId: `d${day}` });
    total += s.tokensSpent;
    console.log(
      JSON.stringify({
        day,
        status: s.status,
        tokens: s.tokensSpent,
        share: +(s.tokensSpent / s.counted).toFixed(4),
        counts: s.refresh?.counts,
        walked: s.refresh?.walked,
        kept: s.refresh?.kept,
        rebuilt: s.refresh?.rebuilt,
        left: s.left,
        entered: s.entered,
        ms: Date.now() - t,
      }),
    );
  }
  console.log(
    JSON.stringify({
      N,
      churn: CHURN,
      days: DAYS,
      maxAgeDays: MAX_AGE,
      maxCounts: MAX_COUNTS,
      meanShare: +(total / DAYS / N).toFixed(4),
    }),
  );
} finally {
  await bench.close();
}
