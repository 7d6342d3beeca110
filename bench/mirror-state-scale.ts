/**
 * Issue 30's state benchmark: the per-record state of one companies search with `list:` and refresh mode `changed`
 * (membership, list marks, refresh registry keys, change fingerprints) driven through the stores as a run drives
 * them, at N members, on a private redis-server (`--save "" --appendonly no`, SLOWLOG at 1 ms). Runs: 1 walks
 * everything (all enter and are listed), 2 and 3 walk a tenth of the partitions with 1% of the members leaving and as
 * many entering (3 confirms the leavers, `removeFromList`), then a dry run's forecast and `plan`'s counts. Prints per
 * size: Redis bytes per member by kind (INFO used_memory deltas), the slowest commands in SLOWLOG, each phase's time,
 * and this process's peak RSS (it holds what the worker holds of the state: pages, never a whole set).
 * Run: npx tsx bench/mirror-state-scale.ts [sizes=1000000] (comma-separated; JSON to $BENCH_OUT when set).
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import { createChangeDetector } from '../src/crm/change-detector.js';
import type { CrmRecord } from '../src/crm/crm-record.js';
import { addRunMatched, MembershipStore } from '../src/runs/membership-store.js';
import { addRunKeys, partitionId, RefreshRegistryStore } from '../src/runs/refresh-registry.js';
import { freePort } from '../src/shared/free-port.js';
import { load, machine } from './lib/machine.js';

const SIZES = (process.argv[2] ?? '1000000').split(',').map(Number);
const PARTITION = 10_000;
const BATCH = 1000;
const FIELDS = ['name', 'domain', 'industry', 'numberofemployees', 'country'];
/** confirmRuns 1: run 2 holds the gone (a skipped partition may have them), run 3 releases and confirms them. */
const rules = { confirmRuns: 1, maxShare: 0.5 };
const key = (i: number): string => `c_${i.toString(36).padStart(5, '0')}`;

let peakRss = 0;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 100);

type SlowEntry = [number, number, number, string[]];
/**
 * SLOWLOG entries read so far, as their time and command only (a whole entry holds up to 32 arguments: at 10M
 * members they had filled this process's heap).
 */
let slowEntries: { ms: number; command: string }[] = [];
let drainTimer: NodeJS.Timeout | undefined;

/** Moves SLOWLOG's entries here and resets it in one transaction: drained often, its 100,000 entries never overflow. */
async function drainSlowlog(redis: Redis): Promise<void> {
  const replies = await redis.multi().slowlog('GET', 100_000).slowlog('RESET').exec();
  for (const [, , micros, args] of (replies?.[0]?.[1] ?? []) as SlowEntry[]) {
    const command = args[0] === 'evalsha' ? (scriptNames.get(args[1] ?? '') ?? 'evalsha') : (args[0] ?? '');
    slowEntries.push({ ms: micros / 1000, command });
  }
}

/** used_memory once the keys freed in the background (UNLINK) are freed, without the SLOWLOG's own entries. */
async function usedMemory(redis: Redis): Promise<number> {
  await drainSlowlog(redis);
  for (;;) {
    const info = await redis.info('memory');
    if (Number(/lazyfree_pending_objects:(\d+)/.exec(info)?.[1]) === 0)
      return Number(/used_memory:(\d+)/.exec(info)?.[1]);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * MEMORY USAGE (SAMPLES 0: every entry) per entry after run 3: up to 200 buckets of each store (record flags, change
 * hashes, the registry's keys by partition) picked by SCAN.
 */
async function memorySamples(redis: Redis): Promise<Record<string, number>> {
  const perEntry = async (keys: string[], size: (k: string) => Promise<number>): Promise<number> => {
    let bytes = 0;
    let entries = 0;
    for (const k of keys) {
      bytes += Number(await redis.memory('USAGE', k, 'SAMPLES', 0));
      entries += await size(k);
    }
    return entries === 0 ? 0 : Number((bytes / entries).toFixed(1));
  };
  const scan = async (pattern: string): Promise<string[]> => {
    const found: string[] = [];
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 10_000);
      cursor = next;
      found.push(...keys);
    } while (cursor !== '0' && found.length < 200);
    return found.slice(0, 200);
  };
  return {
    recordFlagsBucket: await perEntry(await scan('b:mirror:{icp}:portal:records:*'), (k) => redis.hlen(k)),
    changeHashBucket: await perEntry(await scan('b:crm:hash:*:b:*'), (k) => redis.hlen(k)),
    registryBucket: await perEntry(await scan('b:refresh:{icp}:portal:g:*:b*'), (k) => redis.hlen(k)),
  };
}

/** The scripts' names by SHA (as luaScript joins their files), to read SLOWLOG. */
const scriptNames = new Map(
  (
    [
      [
        'settle step',
        [
          'runs/step-progress.lua',
          'shared/linear-buckets.lua',
          'shared/record-state.lua',
          'runs/membership-settle-step.lua',
        ],
      ],
      ['membership records', ['shared/linear-buckets.lua', 'shared/record-state.lua', 'runs/membership-records.lua']],
      ['record prints', ['shared/linear-buckets.lua', 'shared/record-state.lua', 'crm/record-prints.lua']],
      [
        'refresh commit step',
        ['runs/step-progress.lua', 'shared/linear-buckets.lua', 'runs/refresh-registry-commit-step.lua'],
      ],
      ['change hash buckets', ['shared/linear-buckets.lua', 'crm/change-hash-buckets.lua']],
    ] as const
  ).map(([name, files]) => {
    const lua = files.map((f) => readFileSync(new URL(`../src/${f}`, import.meta.url), 'utf8'));
    return [createHash('sha1').update(lua.join('\n')).digest('hex'), name];
  }),
);

async function timed<T>(phases: Record<string, number>, name: string, f: () => Promise<T>): Promise<T> {
  const t0 = performance.now();
  const out = await f();
  phases[name] = Math.round(performance.now() - t0);
  return out;
}

/** A run's walk: per partition walked, its members' match keys to the matched set and the registry's run keys. */
async function walk(
  redis: Redis,
  runId: string,
  partitions: number[],
  members: (p: number) => number[],
): Promise<void> {
  for (const p of partitions) {
    const keys = members(p).map(key);
    for (let i = 0; i < keys.length; i += BATCH) {
      const batch = keys.slice(i, i + BATCH);
      await Promise.all([
        addRunMatched(redis, 'icp', runId, batch, 'b'),
        addRunKeys(redis, 'icp', runId, { part: p }, batch, 'b'),
      ]);
    }
  }
}

async function listStep(store: MembershipStore): Promise<number> {
  let added = 0;
  for await (const page of store.unlistedPages()) {
    await store.markListed(page, true);
    added += page.length;
  }
  return added;
}

async function leaveStep(store: MembershipStore): Promise<number> {
  let removed = 0;
  for await (const page of store.pendingPages()) {
    await store.markListed(page, false);
    await store.done(page);
    removed += page.length;
  }
  return removed;
}

async function sizeRun(n: number): Promise<Record<string, unknown>> {
  const port = await freePort();
  const server = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: 'ignore',
    },
  );
  const redis = new Redis({ port, lazyConnect: true, maxRetriesPerRequest: null });
  redis.on('error', () => undefined); // until the server listens
  for (let i = 0; ; i++) {
    try {
      await redis.connect();
      break;
    } catch (err) {
      if (i > 50) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  try {
    await redis.config('SET', 'slowlog-log-slower-than', '1000');
    await redis.config('SET', 'slowlog-max-len', '100000');
    await redis.slowlog('RESET');
    slowEntries = [];
    drainTimer = setInterval(() => void drainSlowlog(redis).catch(() => undefined), 2000);
    const phases: Record<string, number> = {};
    const bytes: Record<string, number> = {};
    const parts = Math.ceil(n / PARTITION);
    const all = Array.from({ length: parts }, (_, p) => p);
    const store = new MembershipStore(redis, 'icp', 'portal', 'b');
    const registry = new RefreshRegistryStore(redis, 'icp', 'portal', 'b');
    const entry = (p: number) => ({ id: partitionId({ part: p }), filter: { part: p }, count: PARTITION, walkedAt: 0 });
    const range = (p: number, leave: number, enter: number): number[] => {
      const from = p * PARTITION;
      const to = Math.min(n, from + PARTITION);
      const out: number[] = [];
      // The first `leave` of each walked partition left; `enter` new ones (numbered past n) joined it.
      for (let i = from + leave; i < to; i++) out.push(i);
      for (let i = 0; i < enter; i++) out.push(n + p * PARTITION + i);
      return out;
    };
    const m0 = await usedMemory(redis);

    // Run 1: every partition walked, every member enters and is listed.
    await timed(phases, 'run1 walk', () => walk(redis, 'r1', all, (p) => range(p, 0, 0)));
    const m1 = await usedMemory(redis);
    const reg = (at: number) => ({ fingerprint: 'f', savedAt: at, partitions: all.map(entry) });
    await timed(phases, 'run1 refresh commit', () => registry.commit('r1', 1, 1, [], reg(1)));
    const s1 = await timed(phases, 'run1 settle', () => store.settle('r1', rules));
    const m2 = await usedMemory(redis);
    const listed1 = await timed(phases, 'run1 list marks', () => listStep(store));
    const m3 = await usedMemory(redis);
    // As the run's writer does for the search's own records: fingerprints in its record state, same CRM instance.
    const hashes = createChangeDetector(
      redis,
      'b',
      'hs',
      { object: 'companies', matchField: 'id', fields: FIELDS },
      'portal',
      { search: 'icp' },
    );
    await timed(phases, 'run1 change hashes', async () => {
      for (let i = 0; i < n; i += BATCH) {
        const records: CrmRecord[] = [];
        for (let k = i; k < Math.min(n, i + BATCH); k++)
          records.push({
            key: key(k),
            properties: {
              name: `Company ${k}`,
              domain: `c${k}.example`,
              industry: 'Software',
              numberofemployees: k % 5000,
              country: 'DE',
            },
          });
        await hashes.remember(records);
      }
    });
    const m4 = await usedMemory(redis);
    bytes.runMatchedAndRunKeys = (m1 - m0) / n;
    bytes.membersAndRegistryKeys = (m2 - m0) / n;
    bytes.listMarks = (m3 - m2) / n;
    bytes.changeHashes = (m4 - m3) / n;
    bytes.total = (m4 - m0) / n;

    // Runs 2 and 3: a tenth of the partitions walked, 1% of a walked partition's members leave and as many enter.
    const walked = all.filter((p) => p % 10 === 0);
    const skipped = all.filter((p) => p % 10 !== 0).map((p) => partitionId({ part: p }));
    const churn = PARTITION / 100;
    const later: Record<string, unknown>[] = [];
    for (const [runId, at] of [
      ['r2', 2],
      ['r3', 3],
    ] as const) {
      await timed(phases, `${runId} walk`, () => walk(redis, runId, walked, (p) => range(p, churn, churn)));
      const partitions = [
        ...walked.map((p) => ({ ...entry(p), walkedAt: at })),
        ...all.filter((p) => p % 10 !== 0).map(entry),
      ];
      const commit = await timed(phases, `${runId} refresh commit`, () =>
        registry.commit(runId, at, runId === 'r2' ? at - 1 : at, skipped, {
          fingerprint: 'f',
          savedAt: at,
          partitions,
        }),
      );
      const settled = await timed(phases, `${runId} settle`, () => store.settle(runId, rules));
      const added = await timed(phases, `${runId} list adds`, () => listStep(store));
      const removed = await timed(phases, `${runId} leavers`, () => leaveStep(store));
      later.push({ runId, commit, settled, listAdded: added, listRemoved: removed });
    }
    const m5 = await usedMemory(redis);
    bytes.totalAfterRun3 = (m5 - m0) / n;
    const sampled = await memorySamples(redis);
    await timed(phases, 'dry run walk', () => walk(redis, 'r4', walked, (p) => range(p, churn, churn)));
    await registry.commit('r4', 4, 4, skipped, null);
    const forecast = await timed(phases, 'dry run forecast', () => store.forecast('r4', rules, 'removeFromList'));
    const counts = await timed(phases, 'plan counts', () => store.counts(true));

    await drainSlowlog(redis);
    const named = slowEntries;
    const byCommand: Record<string, { calls: number; maxMs: number; p50Ms: number; p99Ms: number }> = {};
    for (const name of new Set(named.map((s) => s.command))) {
      const ms = named
        .filter((s) => s.command === name)
        .map((s) => s.ms)
        .sort((a, b) => a - b);
      const at = (q: number): number => ms[Math.min(ms.length - 1, Math.floor(q * ms.length))]!;
      byCommand[name] = { calls: ms.length, maxMs: ms.at(-1)!, p50Ms: at(0.5), p99Ms: at(0.99) };
    }
    const top = named.sort((a, b) => b.ms - a.ms).slice(0, 5);
    const round = (x: number): number => Number(x.toFixed(1));
    return {
      members: n,
      bytesPerMember: Object.fromEntries(Object.entries(bytes).map(([k, v]) => [k, round(v)])),
      memoryUsagePerEntry: sampled,
      slowlogOver1ms: named.length,
      maxCommandMs: top[0]?.ms ?? 0,
      slowest: top,
      slowlogByCommand: byCommand,
      phasesMs: phases,
      run1: { settled: s1, listed: listed1 },
      later,
      forecast,
      counts,
      benchPeakRssMb: round(peakRss / 1048576),
    };
  } finally {
    clearInterval(drainTimer);
    redis.disconnect();
    server.kill('SIGTERM');
  }
}

const header = { machine: machine(), load: load(), at: new Date().toISOString() };
console.log(JSON.stringify(header));
const results: Record<string, unknown>[] = [];
for (const n of SIZES) {
  peakRss = 0;
  const r = await sizeRun(n);
  results.push(r);
  console.log(JSON.stringify(r));
}
clearInterval(sampler);
if (process.env.BENCH_OUT)
  writeFileSync(process.env.BENCH_OUT, JSON.stringify({ ...header, results, loadAtEnd: load() }, null, 1));
