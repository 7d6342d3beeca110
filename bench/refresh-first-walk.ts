/**
 * Refresh mode `changed` on one companies search (issue 34, items 4 and 7): a full walk as the baseline, then three
 * daily runs in `changed` mode (a new split, then two unchanged re-runs), with a short API token lifetime and a small
 * count allowance so counts wait in the governor's queue for longer than a token lives. Prints per run its status,
 * search requests, counts, tokens (of the first changed run's), 401s served and time.
 * Run: REDIS_URL=redis://127.0.0.1:6379/2 npx tsx bench/refresh-first-walk.ts [companies=6237] [tokenLifetimeS=3600]
 * [countsPerWindow=500] [windowS=60] [maxCounts=500]
 */
import { writeFileSync } from 'node:fs';
import { syncSearch } from '../jobs/sync-search.js';
import { companySearch, startCompanyBench } from './lib/company-bench.js';

const N = Number(process.argv[2] ?? 6237);
const LIFETIME = Number(process.argv[3] ?? 3600);
const COUNTS = Number(process.argv[4] ?? 500);
const WINDOW = Number(process.argv[5] ?? 60);
const MAX_COUNTS = Number(process.argv[6] ?? 500);
const bench = await startCompanyBench({
  account: {
    clientId: 'r-client',
    clientSecret: 'r-secret',
    accountId: 'r',
    limits: { search: 500, count: COUNTS, dictionary: 500 },
  },
  salesIntel: { companies: N, windowSeconds: WINDOW, tokenLifetimeSeconds: LIFETIME },
  hubspotPer10s: 1000,
  source: `  fallbackLimits: {search: 500, count: ${COUNTS}, dictionary: 500, windowSeconds: ${WINDOW}}`,
  searches: `${companySearch('full')}${companySearch(
    'changed',
    `    refresh: {mode: changed, maxAgeDays: 14, maxCounts: ${MAX_COUNTS}}`,
  )}`,
  file: 'bench.yaml',
});
const { si } = bench;
let now = Date.parse('2026-03-01T06:00:00Z');
const deps = bench.deps(() => now);
const rows: Record<string, unknown>[] = [];
let firstTokens = 0;
try {
  for (const [name, runId] of [
    ['full', 'f0'],
    ['changed', 'c1'],
    ['changed', 'c2'],
    ['changed', 'c3'],
  ] as const) {
    const before = si.stats('r');
    const before401 = si.stats().served401;
    const t = Date.now();
    const s = await syncSearch(deps, { search: name, runId });
    const after = si.stats('r');
    if (runId === 'c1') firstTokens = s.tokensSpent;
    const row = {
      run: runId,
      mode: name,
      status: s.status,
      error: s.error?.code,
      searches: after.operations.search - before.operations.search,
      counts: after.operations.count - before.operations.count,
      tokens: s.tokensSpent,
      ofFirst: name === 'changed' && firstTokens > 0 ? +(s.tokensSpent / firstTokens).toFixed(3) : undefined,
      partitions: s.partitions,
      kept: s.refresh?.kept,
      rebuilt: s.refresh?.rebuilt,
      served401: si.stats().served401 - before401,
      ms: Date.now() - t,
    };
    rows.push(row);
    console.log(JSON.stringify(row));
    if (name === 'changed') now += 24 * 3600_000;
  }
  const result = { N, tokenLifetimeSeconds: LIFETIME, counts: `${COUNTS}/${WINDOW}s`, maxCounts: MAX_COUNTS, rows };
  console.log(JSON.stringify(result));
  writeFileSync(`bench/results/refresh-first-walk-${N}-${LIFETIME}s.json`, `${JSON.stringify(result, null, 2)}\n`);
} finally {
  await bench.close();
}
