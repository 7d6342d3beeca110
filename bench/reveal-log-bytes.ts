/**
 * Issue 32's reveal-log figures: N paid reveals appended as runs book them (batches of `BATCH` persons, spread over
 * `DAYS` days), on a private redis-server (`--save "" --appendonly no`). Prints Redis bytes per reveal (INFO
 * used_memory delta), the time to export every line (`reveals --csv` reads this way) and to erase one person
 * (`forget`: every day read in pages, the elements naming them rewritten), for short ids (the emulator's `p_` + 6)
 * and 24-character ids. Run: npx tsx bench/reveal-log-bytes.ts [n=1000000] (JSON to $BENCH_OUT when set).
 */
import { writeFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import { RevealLog } from '../src/source/reveal-log.js';
import { DAY_MS } from '../src/source/reveal-store.js';
import { startPrivateRedis } from '../src/shared/private-redis-server.js';
import { load, machine } from './lib/machine.js';

const N = Number(process.argv[2] ?? 1_000_000);
const BATCH = 100;
const DAYS = 30;

async function usedMemory(redis: Redis): Promise<number> {
  return Number(/used_memory:(\d+)/.exec(await redis.info('memory'))?.[1]);
}

async function measure(redis: Redis, label: string, id: (i: number) => string): Promise<Record<string, unknown>> {
  await redis.flushall();
  const log = new RevealLog(redis, `b:${label}:source:acct`, 400);
  const before = await usedMemory(redis);
  const now = Date.now();
  const t0 = performance.now();
  for (let i = 0; i < N; i += BATCH) {
    const ids = Array.from({ length: Math.min(BATCH, N - i) }, (_, k) => id(i + k));
    const day = Math.floor((i / N) * DAYS);
    await log.append({
      runId: `run-${day}`,
      search: 'people-eu',
      segment: 'key-accounts',
      ids,
      atMs: now - (DAYS - day) * DAY_MS,
    });
  }
  const appendMs = performance.now() - t0;
  const bytes = (await usedMemory(redis)) - before;
  const t1 = performance.now();
  let lines = 0;
  for await (const _ of log.lines({ nowMs: now })) lines += 1;
  const exportMs = performance.now() - t1;
  const t2 = performance.now();
  const erased = await log.erase(id(Math.floor(N / 2)), now);
  const eraseMs = performance.now() - t2;
  return {
    label,
    reveals: N,
    idLength: id(0).length,
    bytesPerReveal: Number((bytes / N).toFixed(1)),
    appendMs: Math.round(appendMs),
    exportMs: Math.round(exportMs),
    linesExported: lines,
    eraseMs: Math.round(eraseMs),
    erased,
  };
}

const server = await startPrivateRedis();
if (server === null) throw new Error('redis-server is not installed');
const redis = new Redis(server.url, { maxRetriesPerRequest: null });
try {
  const results = [
    await measure(redis, 'short-ids', (i) => `p_${i.toString(36).padStart(6, '0')}`),
    await measure(redis, 'ids-24', (i) => i.toString(16).padStart(24, '0')),
  ];
  const report = {
    date: new Date().toISOString(),
    machine: machine(),
    load: load(),
    batch: BATCH,
    days: DAYS,
    results,
  };
  console.log(JSON.stringify(report, null, 2));
  if (process.env.BENCH_OUT) writeFileSync(process.env.BENCH_OUT, `${JSON.stringify(report, null, 2)}\n`);
} finally {
  redis.disconnect();
  await server.stop();
}
