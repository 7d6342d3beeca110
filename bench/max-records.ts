/**
 * `maxRecords` costs what it lands (issue 34, item 3): a companies search of N matches capped at M records, the live
 * index churning between pages, into HubSpot. The emulator holds each cursor journey to the `limit` it opened with
 * (its default; KEEP_LIMIT=0 serves every page's own limit). Prints tokens charged by the API, search requests,
 * fetched / unique, distinct companies in HubSpot, and tokens per record kept; writes bench/results/max-records-*.json.
 * Run: REDIS_URL=redis://127.0.0.1:6379/2 npx tsx bench/max-records.ts [companies=6237] [maxRecords=500]
 * [insertPerPage=1] [removePerPage=1] [runs=3]
 * SOURCE_YAML adds lines under `source:` (e.g. "  maxJourneyRecords: 100\n  parallelism: 8" for partitions);
 * RESULT_SUFFIX is added to the result file's name.
 */
import { writeFileSync } from 'node:fs';
import { syncSearch } from '../jobs/sync-search.js';
import { companySearch, startCompanyBench } from './lib/company-bench.js';
import { load, machine } from './lib/machine.js';

const N = Number(process.argv[2] ?? 6237);
const MAX = Number(process.argv[3] ?? 500);
const INSERT = Number(process.argv[4] ?? 1);
const REMOVE = Number(process.argv[5] ?? 1);
const RUNS = Number(process.argv[6] ?? 3);
const KEEP_LIMIT = process.env.KEEP_LIMIT !== '0';
const offset = process.env.MODE === 'offset';
const filter = `{company: {headcount: {gte: ${process.env.GTE ?? 1}, lte: ${process.env.LTE ?? 1000000}}}${
  offset ? ', options: {sortFields: [{field: headcount, direction: DESC}]}' : ''
}}`;
const account = { clientId: 'm-client', clientSecret: 'm-secret', accountId: 'm' };
const loadBefore = load();
const results: Record<string, unknown>[] = [];
for (let r = 0; r < RUNS; r++) {
  const bench = await startCompanyBench({
    account,
    salesIntel: { companies: N, seed: 1 + r },
    ...(process.env.SOURCE_YAML ? { source: process.env.SOURCE_YAML } : {}),
    searches: companySearch('capped', `    mode: ${offset ? 'offset' : 'cursor'}\n    maxRecords: ${MAX}\n`, filter),
    file: 'capped.yaml',
  });
  const { si } = bench;
  si.faults.set({ churn: { insertPerPage: INSERT, removePerPage: REMOVE }, keepJourneyLimit: KEEP_LIMIT });
  try {
    const s = await syncSearch(bench.deps(), { search: 'capped', runId: 'r1' });
    const inHubSpot = new Set(bench.hubspotIds()).size;
    const stats = si.stats('m');
    const row = {
      status: s.status,
      limitedBy: s.limitedBy,
      counted: s.counted,
      tokens: stats.tokensCharged,
      searches: stats.operations.search,
      fetched: s.fetched,
      unique: s.unique,
      inHubSpot,
      repeats: si.faults.churnLog().inserted.length,
      partitions: s.partitions,
      tokensPerRecord: +(stats.tokensCharged / Math.max(1, inHubSpot)).toFixed(3),
    };
    results.push(row);
    console.log(JSON.stringify(row));
  } finally {
    await bench.close();
  }
}
const summary = {
  N,
  maxRecords: MAX,
  insertPerPage: INSERT,
  removePerPage: REMOVE,
  keepJourneyLimit: KEEP_LIMIT,
  source: process.env.SOURCE_YAML ?? '',
  at: new Date().toISOString(),
  machine: machine(),
  load: { before: loadBefore, after: load() },
  runs: results,
};
console.log(JSON.stringify({ ...summary, runs: results.length }));
const partitioned = process.env.SOURCE_YAML ? '-partitioned' : '';
const variant = `${partitioned}${KEEP_LIMIT ? '' : '-lenient'}${process.env.RESULT_SUFFIX ?? ''}`;
writeFileSync(
  `bench/results/max-records-${N}-${MAX}-churn${INSERT}-${REMOVE}${variant}.json`,
  `${JSON.stringify(summary, null, 2)}\n`,
);
