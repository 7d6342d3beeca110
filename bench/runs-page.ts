/**
 * /runs render time (goal <= 200 ms) with 100 saved searches and 1,000 runs of history each: the real dashboard
 * server over HTTP (basic auth, the Redis PING, the reads of runs, live jobs, schedulers, budget and alerts, the HTML
 * with 200 sparklines, the budget strip's forecast to the token reset), real Redis. The histories are written as
 * recordRun keeps them (a list of JSON summaries, newest first), in one LPUSH per search. While the pages render,
 * /healthz is asked every 20 ms (goal: each answer <= 100 ms) from a worker thread (the clients' work is not the
 * server's) and the server's event loop's longest delay is sampled. `--page=/runs/search-0?limit=200`: a search's
 * page instead. Keys live in their own database (default 12) and are deleted afterwards.
 * Run: REDIS_URL=redis://127.0.0.1:6379/12 npx tsx bench/runs-page.ts [searches=100] [runs=1000] [--renders=30]
 *   [--cron='*\/15 * * * *'] (every search on that cron instead of every 1h) [--reset-days=20] [--page=/runs]
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import {
  constants,
  monitorEventLoopDelay,
  performance,
  PerformanceObserver,
  type PerformanceEntry,
} from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import type { SavedSearch } from '../src/config/index.js';
import { openQueues } from '../src/queue/index.js';
import { runKeys } from '../src/runs/run-keys.js';
import { emptyCounts, type RunSummary } from '../src/runs/run-summary.js';
import { startDashboardServer } from '../src/server/index.js';
import { silentLogger } from '../src/shared/logger.js';
import { createRedis, deleteKeysUnder } from '../src/shared/redis.js';
import { RedisBudgetLedger } from '../src/source/budget-ledger.js';
import { load, machine } from './lib/machine.js';

const [searchCount, runCount] = process.argv
  .slice(2)
  .filter((a) => /^\d+$/.test(a))
  .map(Number);
const SEARCHES = searchCount ?? 100;
const RUNS = runCount ?? 1_000;
const flag = (name: string): string | undefined =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const renders = Number(flag('renders') ?? 30);
const cron = flag('cron');
const resetDays = Number(flag('reset-days') ?? 20);
/** The page rendered: /runs, or a search's page (`--page=/runs/search-0?limit=200`). */
const page = flag('page') ?? '/runs';
const redis = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/12');
const prefix = `runs-page-bench:${randomUUID().slice(0, 8)}`;
const searches = Array.from(
  { length: SEARCHES },
  (_, i) =>
    ({
      name: `search-${i}`,
      destination: 'crm',
      schedule: cron ? { cron, timezone: 'UTC' } : { every: '1h' },
    }) as unknown as SavedSearch,
);

async function fill(): Promise<void> {
  const now = Date.now();
  for (const s of searches) {
    const lines: string[] = [];
    for (let r = RUNS - 1; r >= 0; r--) {
      const at = new Date(now - r * 3_600_000).toISOString();
      const summary: RunSummary = {
        search: s.name,
        status: r % 17 === 0 ? 'failed' : 'completed',
        ...emptyCounts(),
        fetched: 100 + (r % 50),
        created: r % 7,
        updated: 20,
        unchanged: 80,
        tokensSpent: 100 + (r % 50),
        durationMs: 60_000 + r,
        runId: randomUUID(),
        startedAt: at,
        finishedAt: at,
        dryRun: false,
        partitions: 1,
        trigger: 'schedule',
      };
      lines.push(JSON.stringify(summary));
    }
    // LPUSH puts the last pushed first: the newest run (r = 0) was pushed last.
    await redis.lpush(runKeys(s.name, prefix).history, ...lines);
  }
  const ledger = new RedisBudgetLedger(redis, `${prefix}:source:acct-a`, 0, {});
  await ledger.observeTokens({
    'x-rate-results-limit': '1000000',
    'x-rate-results-limit-remaining': '600000',
    'x-rate-results-limit-reset': String(resetDays * 86_400),
  });
}

interface Measured {
  times: number[];
  health: number[];
  bytes: number;
}

/** The clients' worker (plain JavaScript: it runs without the TypeScript loader). */
const CLIENTS = `
const { parentPort, workerData: w } = require('node:worker_threads');
const headers = { authorization: 'Basic ' + w.auth, accept: 'text/html' };
const get = async () => {
  const t = performance.now();
  const res = await fetch(w.url + w.page, { headers });
  const body = await res.text();
  if (res.status !== 200 || !body.includes(w.page === '/runs' ? w.expect : 'History'))
    throw new Error(w.page + ' answered ' + res.status);
  return { ms: performance.now() - t, bytes: body.length };
};
(async () => {
  for (let i = 0; i < 5; i++) await get(); // warm up (JIT, connections)
  parentPort.postMessage({ warm: true });
  const times = [];
  const health = [];
  let rendering = true;
  const probe = (async () => {
    while (rendering) {
      const t = performance.now();
      await (await fetch(w.url + '/healthz')).text();
      health.push(performance.now() - t);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  let bytes = 0;
  for (let i = 0; i < w.renders; i++) {
    const r = await get();
    times.push(r.ms);
    bytes = r.bytes;
  }
  rendering = false;
  await probe;
  parentPort.postMessage({ times, health, bytes });
})();
`;

/**
 * A thread that does nothing but keep its event loop waiting: its longest delay is what the machine (other processes,
 * `nice`) costs any thread at that moment, the floor under the server's figure.
 */
const IDLE = `
const { parentPort } = require('node:worker_threads');
const { monitorEventLoopDelay } = require('node:perf_hooks');
const loop = monitorEventLoopDelay({ resolution: 5 });
const keep = setInterval(() => {}, 1000);
parentPort.on('message', (m) => {
  if (m === 'start') return loop.enable();
  loop.disable();
  clearInterval(keep);
  parentPort.postMessage(loop.max / 1e6);
});
`;

const round = (x: number): number => Math.round(x * 10) / 10;
const stats = (xs: number[]): { medianMs: number; p95Ms: number; maxMs: number } => {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q: number): number => s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? Number.NaN;
  return { medianMs: round(at(0.5)), p95Ms: round(at(0.95)), maxMs: round(s.at(-1) ?? Number.NaN) };
};

const queues = openQueues({ connection: redis, prefix });
const auth = { username: 'ops', password: 'bench-pass' };
const server = await startDashboardServer({
  queues: [queues.sync, queues.tick],
  redis,
  prefix,
  port: 0,
  auth,
  logger: silentLogger,
  searches: () => searches,
  creditCaps: () => ({ maxPerDay: 5_000 }),
  runActions: true,
});
const out: Record<string, unknown>[] = [];
try {
  const filled = performance.now();
  await fill();
  console.log(
    `filled ${SEARCHES} x ${RUNS} runs in ${Math.round(performance.now() - filled)} ms; ${machine()}; ${load()}`,
  );
  const auth64 = Buffer.from(`${auth.username}:${auth.password}`).toString('base64');
  // The clients (the renders asked for and the /healthz probe) run in a worker thread with its own event loop: in the
  // server's loop, reading an answer of 800 kB would count as the server's blocking and delay the probe's own timer.
  const clients = new Worker(CLIENTS, {
    eval: true,
    workerData: { url: server.url, auth: auth64, page, renders, expect: `search-${SEARCHES - 1}` },
  });
  const loop = monitorEventLoopDelay({ resolution: 5 });
  // The server thread's garbage collections meanwhile: a pause of the whole thread that no slicing of ours shortens.
  const gc = { minorMaxMs: 0, majorMaxMs: 0, count: 0 };
  const gcs = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = (e as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind;
      const key = kind === constants.NODE_PERFORMANCE_GC_MINOR ? 'minorMaxMs' : 'majorMaxMs';
      gc[key] = Math.max(gc[key], e.duration);
      gc.count++;
    }
  });
  const idle = new Worker(IDLE, { eval: true });
  const measured = new Promise<Measured>((resolve, reject) => {
    clients.on('message', (m: { warm?: boolean } & Measured) => {
      if (!m.warm) return resolve(m);
      loop.enable();
      gcs.observe({ entryTypes: ['gc'] });
      idle.postMessage('start');
    });
    clients.on('error', reject);
  });
  const { times, health, bytes } = await measured;
  loop.disable();
  gcs.disconnect();
  const idleMax = new Promise<number>((resolve) => idle.once('message', resolve));
  idle.postMessage('stop');
  const idleLoopMaxDelayMs = await idleMax;
  await Promise.all([clients.terminate(), idle.terminate()]);
  const line = {
    label:
      `GET ${page}, ${SEARCHES} searches x ${RUNS} runs, ${cron ?? 'every 1h'}, reset in ${resetDays} days ` +
      `(${renders} times)`,
    ...stats(times),
    healthz: { probes: health.length, ...stats(health) },
    eventLoopMaxDelayMs: round(loop.max / 1e6),
    idleThreadLoopMaxDelayMs: round(idleLoopMaxDelayMs),
    gc: { collections: gc.count, minorMaxMs: round(gc.minorMaxMs), majorMaxMs: round(gc.majorMaxMs) },
    htmlBytes: bytes,
    goalMs: 200,
    machine: machine(),
    load: load(),
  };
  out.push(line);
  console.log(JSON.stringify(line));
} finally {
  await server.close();
  await queues.close();
  await deleteKeysUnder(redis, prefix);
  redis.disconnect();
}
if (process.env.BENCH_OUT) writeFileSync(process.env.BENCH_OUT, JSON.stringify(out, null, 1));
