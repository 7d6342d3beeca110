/**
 * One /metrics scrape with 300,000 unrelated keys in the database (goal <= 50 ms): the real metrics endpoint over
 * real Redis, with 10 searches that have run history, 2 budget accounts, 6 rate governors and both queues. Also
 * times what a scrape used to do before the key index: the 3 SCANs (budget balances, credit totals, governors).
 * The keys live in their own database (default 12) and are deleted afterwards.
 * Run: REDIS_URL=redis://127.0.0.1:6379/12 npx tsx bench/metrics-scrape.ts [unrelatedKeys=300000] [--scrapes=30]
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { SavedSearch } from '../src/config/index.js';
import { openQueues } from '../src/queue/index.js';
import { recordRun } from '../src/runs/run-history.js';
import { emptyCounts, type RunSummary } from '../src/runs/run-summary.js';
import { createMetricsEndpoint } from '../src/server/index.js';
import { listGovernorSnapshots } from '../src/shared/governor-snapshots.js';
import { RateGovernor } from '../src/shared/rate-governor.js';
import { createRedis, deleteKeysUnder, scanKeys } from '../src/shared/redis.js';
import { RedisBudgetLedger } from '../src/source/budget-ledger.js';
import { load, machine } from './lib/machine.js';
import { readBudgetStates } from '../src/source/budget-states.js';

const unrelated = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 300_000);
const scrapes = Number(process.argv.find((a) => a.startsWith('--scrapes='))?.slice('--scrapes='.length) ?? 30);
const redis = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/12');
const prefix = `metrics-bench:${randomUUID().slice(0, 8)}`;
const junk = `metrics-bench-junk:${randomUUID().slice(0, 8)}`;

async function fillUnrelated(): Promise<void> {
  for (let i = 0; i < unrelated; i += 10_000) {
    const batch = redis.pipeline();
    for (let j = i; j < Math.min(unrelated, i + 10_000); j++) batch.set(`${junk}:${j}`, 'x');
    await batch.exec();
  }
}

async function deleteUnrelated(): Promise<void> {
  for (let i = 0; i < unrelated; i += 10_000) {
    const keys = Array.from({ length: Math.min(10_000, unrelated - i) }, (_, j) => `${junk}:${i + j}`);
    await redis.unlink(...keys);
  }
}

const searches = Array.from({ length: 10 }, (_, i) => ({ name: `search-${i}`, destination: 'crm' }) as SavedSearch);
async function fillMetricsState(): Promise<void> {
  for (const s of searches) {
    for (let r = 0; r < 5; r++) {
      const at = new Date(Date.now() - r * 3_600_000).toISOString();
      const summary: RunSummary = {
        search: s.name,
        status: 'completed',
        ...emptyCounts(),
        fetched: 100,
        created: 10,
        durationMs: 60_000,
        runId: randomUUID(),
        startedAt: at,
        finishedAt: at,
        dryRun: false,
        partitions: 1,
      };
      await recordRun(redis, summary, { prefix });
    }
  }
  const balance = {
    'x-rate-results-limit': '100000',
    'x-rate-results-limit-remaining': '90000',
    'x-rate-results-limit-reset': '86400',
  };
  for (const account of ['acct-a', 'acct-b']) {
    const ledger = new RedisBudgetLedger(redis, `${prefix}:source:${account}`, 0, {});
    await ledger.observeTokens(balance);
    const r = await ledger.reserveCredits('run', 10);
    await ledger.settleCredits('run', r.id, 10);
  }
  for (const [remote, account, op] of [
    ['source', 'acct-a', 'search'],
    ['source', 'acct-a', 'count'],
    ['source', 'acct-b', 'search'],
    ['hubspot', '123', 'requests'],
    ['hubspot', '123', 'search'],
    ['salesforce', 'org1', 'requests'],
  ] as const) {
    const g = new RateGovernor(redis, prefix, remote, account, { untilLearned: 'open' });
    await g.learn(op, { limit: 100, windowMs: 10_000, mode: 'headers' });
    await g.record(op, '2xx');
  }
}

const ms = (from: number): number => performance.now() - from;
const round = (x: number): number => Math.round(x * 10) / 10;
const stats = (xs: number[]): { medianMs: number; p95Ms: number; maxMs: number } => {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q: number): number => s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? Number.NaN;
  return { medianMs: round(at(0.5)), p95Ms: round(at(0.95)), maxMs: round(s.at(-1) ?? Number.NaN) };
};
const out: Record<string, unknown>[] = [];
const report = (label: string, figures: Record<string, unknown>): void => {
  const line = { label, ...figures, unrelatedKeys: unrelated, machine: machine(), load: load() };
  out.push(line);
  console.log(JSON.stringify(line));
};

const queues = openQueues({ connection: redis, prefix });
try {
  await fillMetricsState();
  const metrics = createMetricsEndpoint({
    redis,
    prefix,
    queues: [queues.sync, queues.tick],
    searches: () => searches,
    governorSnapshots: () => listGovernorSnapshots(redis, prefix),
  });
  const timeScrapes = async (): Promise<number[]> => {
    const times: number[] = [];
    for (let i = 0; i < scrapes; i++) {
      const t = performance.now();
      await metrics.render();
      times.push(ms(t));
    }
    return times;
  };
  for (let i = 0; i < 20; i++) await metrics.render(); // warm up (JIT, connections) before timing
  const alone = await timeScrapes();
  await fillUnrelated();
  // An upgraded database has keys but no index yet: its first read indexes it (one SCAN, once per database).
  await redis.del(
    `${prefix}:index:budget-accounts`,
    `${prefix}:index:budget-accounts:built`,
    `${prefix}:index:governors`,
    `${prefix}:index:governors:built`,
  );
  const first = performance.now();
  await Promise.all([readBudgetStates(redis, prefix), listGovernorSnapshots(redis, prefix)]);
  const firstMs = ms(first);
  const warm = await metrics.render();
  if (warm.status !== 200 || !warm.body.includes('prospect_sync_api_requests_total{remote="salesforce"'))
    throw new Error(`scrape incomplete: ${warm.status}`);
  const times = await timeScrapes();
  const scanTimes: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    for (const pattern of [`${prefix}:source:*:tokens`, `${prefix}:source:*:credits:total`, `${prefix}:gov:*`])
      await scanKeys(redis, pattern);
    scanTimes.push(ms(t));
  }
  report('first read after an upgrade (indexes the database once: the SCANs)', {
    ms: round(firstMs),
    keysInDb: await redis.dbsize(),
  });
  report(`scrape without the unrelated keys (${scrapes} times)`, stats(alone));
  report(`scrape with the unrelated keys (${scrapes} times)`, stats(times));
  report('the 3 SCANs a scrape ran before the index (5 times)', stats(scanTimes));
} finally {
  await queues.close();
  await deleteUnrelated();
  await deleteKeysUnder(redis, prefix);
  redis.disconnect();
}
if (process.env.BENCH_OUT) writeFileSync(process.env.BENCH_OUT, JSON.stringify(out, null, 1));
