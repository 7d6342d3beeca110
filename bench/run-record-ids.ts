/**
 * Issue 30 item 4's Redis side: a run's record ids (its dedup set, src/runs/run-record-ids.ts) driven as a run drives
 * them, N ids in pages of 100 (5% of each page a repeat of an id seen before): each page admitted (one call), then
 * committed and written with a checkpoint (one transaction, the checkpoint a 2 KB string); at the end the set is
 * dropped. On a private redis-server (`--save "" --appendonly no`, SLOWLOG at 1 ms). Prints Redis bytes per id
 * (INFO used_memory delta, before the drop), each call's time (p50 / p99 / max), SLOWLOG (entries over 1 ms, the
 * slowest) and the drop.
 * Run: nice -n 5 npx tsx bench/run-record-ids.ts [sizes=100000,1000000] (JSON to $BENCH_OUT when set).
 */
import { writeFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import { execAlong } from '../src/runs/checkpoint-store.js';
import { RunRecordIds } from '../src/runs/run-record-ids.js';
import { startPrivateRedis } from '../src/shared/private-redis-server.js';
import { load, machine } from './lib/machine.js';

const SIZES = (process.argv[2] ?? '100000,1000000').split(',').map(Number);
const PAGE = 100;
const REPEATS = 5;

async function usedMemory(redis: Redis): Promise<number> {
  return Number(/used_memory:(\d+)/.exec(await redis.info('memory'))?.[1]);
}

function quantiles(ms: number[]): { p50: number; p99: number; max: number } {
  const sorted = [...ms].sort((a, b) => a - b);
  const at = (q: number): number =>
    Number((sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0).toFixed(2));
  return { p50: at(0.5), p99: at(0.99), max: Number((sorted.at(-1) ?? 0).toFixed(2)) };
}

async function measure(redis: Redis, n: number): Promise<Record<string, unknown>> {
  await redis.flushall();
  await redis.slowlog('RESET');
  const ids = new RunRecordIds(redis, 'bench', `run-${n}`, 'b');
  const checkpoint = 'x'.repeat(2048);
  const before = await usedMemory(redis);
  const admitMs: number[] = [];
  const saveMs: number[] = [];
  let admitted = 0;
  const id = (i: number): string => `c_${i.toString(36).padStart(5, '0')}`;
  const t0 = performance.now();
  for (let i = 0; i < n; i += PAGE - REPEATS) {
    const page = Array.from({ length: Math.min(PAGE - REPEATS, n - i) }, (_, k) => id(i + k));
    for (let r = 0; r < REPEATS && i > 0; r++) page.push(id(Math.floor(Math.random() * i)));
    const a = performance.now();
    const first = await ids.admit(page);
    admitMs.push(performance.now() - a);
    const fresh = page.filter((_, k) => first[k]);
    admitted += fresh.length;
    ids.committed(fresh);
    const s = performance.now();
    await execAlong(redis, ids, (batch) => batch.set('b:checkpoint', checkpoint, 'PX', 60_000));
    saveMs.push(performance.now() - s);
  }
  const runMs = performance.now() - t0;
  // Every entry over 1 ms (SLOWLOG keeps the last 128 by default; raised to 100,000 below).
  const entries = (await redis.slowlog('GET', -1)) as [number, number, number, string[]][];
  const slowlog = {
    over1ms: entries.length,
    maxMs: Math.max(0, ...entries.map((e) => e[2] / 1000)),
    over50ms: entries.filter((e) => e[2] > 50_000).length,
  };
  // Its entries hold their arguments (ids): not the set's memory.
  await redis.slowlog('RESET');
  const bytes = (await usedMemory(redis)) - before;
  const d = performance.now();
  await ids.drop();
  const dropMs = performance.now() - d;
  return {
    ids: n,
    admitted,
    bytesPerId: Number((bytes / n).toFixed(1)),
    runSeconds: Number((runMs / 1000).toFixed(1)),
    admitCallMs: quantiles(admitMs),
    saveTransactionMs: quantiles(saveMs),
    slowlog,
    dropMs: Math.round(dropMs),
    keysLeft: (await redis.keys('b:*')).filter((k) => k !== 'b:checkpoint').length,
  };
}

const server = await startPrivateRedis();
if (server === null) throw new Error('redis-server is not installed');
const redis = new Redis(server.url, { maxRetriesPerRequest: null });
try {
  await redis.config('SET', 'slowlog-log-slower-than', '1000');
  await redis.config('SET', 'slowlog-max-len', '100000');
  const started = { date: new Date().toISOString(), machine: machine(), load: load() };
  const results = [];
  for (const n of SIZES) {
    const result = await measure(redis, n);
    console.log(JSON.stringify(result));
    results.push(result);
  }
  const report = { ...started, page: PAGE, repeatsPerPage: REPEATS, results, loadAtEnd: load() };
  if (process.env.BENCH_OUT) writeFileSync(process.env.BENCH_OUT, `${JSON.stringify(report, null, 2)}\n`);
  console.log(JSON.stringify({ loadAtEnd: report.loadAtEnd }));
} finally {
  redis.disconnect();
  await server.stop();
}
