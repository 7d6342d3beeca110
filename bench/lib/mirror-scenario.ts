/**
 * The mirror scenario (issue 23's benchmark; bench/mirror-lists.ts, and small in test/bench/mirror-lists.test.ts):
 * a companies search with `list: {name}` and `onLeave: removeFromList` (confirmRuns 2) synced into HubSpot by the
 * real worker process, four times: run 1 all enter; then 1% of the companies leave the filter and 1% enter it (the
 * API emulator's company-headcount control); run 2 adds the entered, run 3 confirms and removes the leavers; run 4
 * is unchanged. Then a run of the same filter without `list:` (the search tokens and time without the list work).
 * Per run: the list's HubSpot calls by route, calls per changed list member, when the list work ran (the emulator's
 * first and last call of each route), tokens; at the end the Redis bytes of the membership and list state.
 */
import type { Redis } from 'ioredis';
import { slotOfOrdinal } from '../../src/emulators/sales-intel/dataset.js';
import { companyId } from '../../src/emulators/sales-intel/record-render.js';
import type { RunSummary } from '../../src/runs/run-summary.js';
import { createRedis, deleteKeysUnder } from '../../src/shared/redis.js';
import {
  companiesSearch,
  HUBSPOT_TOKEN,
  REDIS_URL,
  SI_CLIENT,
  writeBenchConfig,
  type BenchConfig,
} from './bench-config.js';
import { startSplitEmulatorHosts, type EmulatorHost, type HostStats } from './emulator-host-client.js';
import { load } from './machine.js';
import { lastJson, startWorker } from './worker-process.js';

export interface MirrorScenarioOptions {
  /** Companies matching the search at run 1; 1% of them leave and as many enter before run 2. */
  companies: number;
  /** API package: searches per window, window seconds. */
  rate: { limit: number; windowSeconds: number };
  hubspotPer10s: number;
  latency: { fixedMs: number; jitterMs: number };
  /** Waits for an API window's start before each run (whole windows: runs compare). */
  align: boolean;
  /** The run without `list:` at the end. */
  plainRun: boolean;
  /** `unchanged`: only run 1 and an unchanged run 2 (nobody moves): the list's size edge, cheaper than all four. */
  runs?: 'all' | 'unchanged';
  runtime: 'dist' | 'tsx';
  /** Node flags of the worker process only (the image's heap settings, a memory sampler). */
  workerNodeArgs?: string[];
  /** Redis and key prefix (default: the bench database, a fresh prefix). */
  redisUrl?: string;
  prefix?: string;
  /** Each run's figures as it ends. */
  onRun?: (run: RunFigures) => void;
}

export interface RunFigures {
  label: string;
  status: string;
  /** A run that did not complete: why. */
  error?: { code: string; message: string };
  records: number;
  created: number;
  unchanged: number;
  entered: number;
  left: number;
  leaveActions: number;
  listAdded: number;
  listRemoved: number;
  tokensSpent: number;
  tokensPerRecord: number;
  runSeconds: number;
  /** HubSpot requests of the list work, by route (name lookups, create, key-to-id reads, membership changes). */
  listCalls: Record<string, number>;
  listCallsTotal: number;
  /** List writes: list creates and membership changes. */
  listWrites: number;
  /** Members added to or removed from the list in this run. */
  changedMembers: number;
  callsPerChangedMember: number | null;
  /** From the first list call to the run's end (the list work and what follows it), and its share of the run. */
  listTailSeconds: number | null;
  listShareOfRun: number | null;
  /** The list's calls at HubSpot's limit would take this long at least; over the span of the list calls. */
  listCallsAtCeilingSeconds: number;
  listSpanSeconds: number | null;
  hubspotRequests: number;
  hubspotPeakPerWindow: number;
  hubspot429: number;
  api429: number;
  listSize: number | undefined;
  loadBefore: string;
  /** The worker process's peak resident memory (getrusage maxrss). */
  workerPeakRssMb: number;
  /** The worker process's CPU time (user + system, getrusage). */
  workerCpuSeconds: number;
}

export interface MemoryFigures {
  members: number;
  /** MEMORY USAGE (SAMPLES 0) by key kind (records: the record flags and their buckets; absent, pending, meta). */
  bytesByKey: Record<string, number>;
  bytesPerMember: number;
  /** The record flags (members and list marks; the `members` set in the layout before), per member. */
  membersSetBytesPerMember: number;
  mbPerMillionMembers: number;
}

export interface MirrorScenarioResult {
  runs: RunFigures[];
  memory: MemoryFigures;
  /** The scenario's own checks: name → passed. */
  checks: Record<string, boolean>;
}

const LIST_NAME = 'ICP';
const FILTER = { company: { headcount: { gte: 1, lte: 1_000_000 } } };
/** A headcount above the filter's range: the company leaves the search. */
const OUT = 2_000_000;
const LIST_ROUTES = ['lists.byName', 'lists.create', 'read', 'lists.addAndRemove', 'lists.memberships'];
const LIST_WRITE_ROUTES = ['lists.create', 'lists.addAndRemove'];
/** Record ids per membership change and keys per key-to-id read (src/crm/hubspot/hubspot-lists.ts). */
const PER_CALL = 100;

/** The list calls a run may make for `changed` list members: a read and a write per 100, two name lookups. */
export function listCallBound(changed: number): number {
  return 2 * Math.ceil(changed / PER_CALL) + 2;
}

async function moveCompanies(host: EmulatorHost, moves: { id: string; headcount: number }[]): Promise<void> {
  for (let i = 0; i < moves.length; i += 10_000) {
    const res = await fetch(`${host.salesIntel.url}/__emulator/company-headcount`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ moves: moves.slice(i, i + 10_000) }),
      signal: AbortSignal.timeout(30_000),
    });
    if (res.status !== 200) throw new Error(`company-headcount answered ${res.status}: ${await res.text()}`);
  }
}

function listFigures(
  label: string,
  summary: RunSummary,
  stats: HostStats,
  rates: MirrorScenarioOptions,
  loadBefore: string,
  usage: { maxRssMb: number; cpuMs: number },
): RunFigures {
  const hs = stats.hubspot!;
  const listCalls = Object.fromEntries(
    LIST_ROUTES.filter((r) => (hs.byRoute[r] ?? 0) > 0).map((r) => [r, hs.byRoute[r]!]),
  );
  const listCallsTotal = Object.values(listCalls).reduce((a, b) => a + b, 0);
  const times = LIST_ROUTES.map((r) => hs.routeTimes[r]).filter((t) => t !== undefined);
  const first = times.length > 0 ? Math.min(...times.map((t) => t.first)) : undefined;
  const last = times.length > 0 ? Math.max(...times.map((t) => t.last)) : undefined;
  const runSeconds = summary.durationMs / 1000;
  const tail = first === undefined ? null : (Date.parse(summary.finishedAt) - first) / 1000;
  const changedMembers = (summary.listAdded ?? 0) + (summary.listRemoved ?? 0);
  const round = (x: number, d = 3): number => Number(x.toFixed(d));
  return {
    label,
    status: summary.status,
    ...(summary.error ? { error: summary.error } : {}),
    records: summary.fetched,
    created: summary.created,
    unchanged: summary.unchanged,
    entered: summary.entered ?? 0,
    left: summary.left ?? 0,
    leaveActions: summary.leaveActions ?? 0,
    listAdded: summary.listAdded ?? 0,
    listRemoved: summary.listRemoved ?? 0,
    tokensSpent: summary.tokensSpent,
    tokensPerRecord: summary.fetched > 0 ? round(summary.tokensSpent / summary.fetched) : 0,
    runSeconds: round(runSeconds, 1),
    listCalls,
    listCallsTotal,
    listWrites: LIST_WRITE_ROUTES.reduce((n, r) => n + (hs.byRoute[r] ?? 0), 0),
    changedMembers,
    callsPerChangedMember: changedMembers > 0 ? round(listCallsTotal / changedMembers, 4) : null,
    listTailSeconds: tail === null ? null : round(tail, 2),
    listShareOfRun: tail === null ? null : round(tail / runSeconds),
    listCallsAtCeilingSeconds: round(listCallsTotal / (rates.hubspotPer10s / 10), 2),
    listSpanSeconds: first === undefined || last === undefined ? null : round((last - first) / 1000, 2),
    hubspotRequests: hs.requests,
    hubspotPeakPerWindow: hs.peakPerWindow,
    hubspot429: hs.throttled.TEN_SECONDLY_ROLLING + hs.throttled.DAILY,
    api429:
      stats.salesIntel.served429.search + stats.salesIntel.served429.count + stats.salesIntel.served429.dictionary,
    listSize: hs.lists[LIST_NAME],
    loadBefore,
    workerPeakRssMb: round(usage.maxRssMb, 1),
    workerCpuSeconds: round(usage.cpuMs / 1000, 1),
  };
}

/** MEMORY USAGE of every key of the search's membership (one CRM instance), by kind. */
async function memoryOf(redis: Redis, prefix: string, search: string): Promise<MemoryFigures> {
  const bytesByKey: Record<string, number> = {};
  let members = 0;
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:mirror:{${search}}:*`, 'COUNT', 1000);
    cursor = next;
    for (const key of keys) {
      const last = key.slice(key.lastIndexOf(':') + 1);
      // The record flags' buckets (`…:records:<n>`) count with their meta (`…:records`).
      const kind = /^\d+$/.test(last) ? 'records' : last;
      bytesByKey[kind] = (bytesByKey[kind] ?? 0) + Number(await redis.call('MEMORY', 'USAGE', key, 'SAMPLES', '0'));
      if (key.endsWith(':records')) members += Number((await redis.hget(key, 'm')) ?? 0);
      else if (kind === 'members') members += await redis.scard(key);
    }
  } while (cursor !== '0');
  const total = Object.values(bytesByKey).reduce((a, b) => a + b, 0);
  const perMember = members > 0 ? total / members : 0;
  return {
    members,
    bytesByKey,
    bytesPerMember: Number(perMember.toFixed(1)),
    membersSetBytesPerMember:
      members > 0 ? Number(((bytesByKey.records ?? bytesByKey.members ?? 0) / members).toFixed(1)) : 0,
    // bytes per member × 1,000,000 members, in MB (10^6 bytes): the same figure.
    mbPerMillionMembers: Number(perMember.toFixed(1)),
  };
}

export async function runMirrorScenario(o: MirrorScenarioOptions): Promise<MirrorScenarioResult> {
  const moved = Math.max(1, Math.round(o.companies / 100));
  const host = await startSplitEmulatorHosts({
    salesIntel: {
      companies: o.companies + moved,
      persons: 0,
      windowSeconds: o.rate.windowSeconds,
      faults: { latency: o.latency },
      accounts: [{ ...SI_CLIENT, limits: { search: o.rate.limit, count: o.rate.limit, dictionary: o.rate.limit } }],
    },
    hubspot: { accessTokens: [HUBSPOT_TOKEN], limits: { perTenSeconds: o.hubspotPer10s, daily: 10_000_000 } },
  });
  const listed = { list: { name: LIST_NAME }, onLeave: 'removeFromList', leave: { confirmRuns: 2 } };
  const written = writeBenchConfig(host, {
    name: 'mirror',
    limits: { search: o.rate.limit, windowSeconds: o.rate.windowSeconds },
    hubspotPer10s: o.hubspotPer10s,
    searches: [
      companiesSearch('mirror', 'hs', 'companies', FILTER, listed),
      companiesSearch('plain', 'hs', 'companies', FILTER),
    ],
  });
  const prefix = o.prefix ?? written.prefix;
  const redisUrl = o.redisUrl ?? REDIS_URL;
  const cfg: BenchConfig = { ...written, prefix, env: { ...written.env, REDIS_URL: redisUrl, QUEUE_PREFIX: prefix } };
  const redis = createRedis(redisUrl);
  const runs: RunFigures[] = [];

  const run = async (search: string, label: string): Promise<RunFigures> => {
    if (o.align) {
      const w = o.rate.windowSeconds * 1000;
      await new Promise((r) => setTimeout(r, Math.ceil(Date.now() / w) * w - Date.now() + 5));
    }
    await host.reset();
    const loadBefore = load();
    const result = await startWorker(['run', search, '--json', '--config', cfg.file], cfg.env, {
      runtime: o.runtime,
      nodeArgs: o.workerNodeArgs ?? [],
    }).done;
    let summary: RunSummary;
    try {
      summary = lastJson<RunSummary>(result.stdout);
    } catch {
      throw new Error(`${label}: worker exited ${result.exitCode} without a summary: ${result.stderr.slice(-2000)}`);
    }
    const f = listFigures(label, summary, await host.stats(), o, loadBefore, result.usage);
    runs.push(f);
    o.onRun?.(f);
    return f;
  };

  try {
    // The companies past `companies` start outside the filter; they are the ones that enter before run 2.
    const id = (k: number): string => companyId(slotOfOrdinal(k));
    const entering = Array.from({ length: moved }, (_, i) => id(o.companies + i));
    const leaving = Array.from({ length: moved }, (_, i) => id(Math.floor((i * o.companies) / moved) + 1));
    await moveCompanies(
      host,
      entering.map((id) => ({ id, headcount: OUT })),
    );
    const r1 = await run('mirror', `run 1: ${o.companies} companies enter`);
    const n = o.companies;
    if (o.runs === 'unchanged') {
      const r2 = await run('mirror', 'run 2: unchanged');
      const memory = await memoryOf(redis, prefix, 'mirror');
      const checks = {
        'run 1: every company entered and is in the list':
          r1.status === 'completed' && r1.records === n && r1.entered === n && r1.listAdded === n && r1.listSize === n,
        'run 2 (unchanged): 0 list writes':
          r2.listWrites === 0 && r2.listAdded === 0 && r2.listRemoved === 0 && r2.listSize === n,
      };
      return { runs, memory, checks };
    }
    await moveCompanies(host, [
      ...leaving.map((id) => ({ id, headcount: OUT })),
      ...entering.map((id, i) => ({ id, headcount: 10 + (i % 500) })),
    ]);
    const r2 = await run('mirror', `run 2: ${moved} entered, ${moved} absent once`);
    const r3 = await run('mirror', `run 3: ${moved} leavers confirmed`);
    const r4 = await run('mirror', 'run 4: unchanged');
    const memory = await memoryOf(redis, prefix, 'mirror');
    const plain = o.plainRun ? await run('plain', 'run 5: the same filter without list:') : undefined;
    const checks: Record<string, boolean> = {
      'run 1: every company entered and is in the list':
        r1.status === 'completed' && r1.records === n && r1.entered === n && r1.listAdded === n && r1.listSize === n,
      'run 2: the entered are added, nobody removed yet':
        r2.entered === moved &&
        r2.listAdded === moved &&
        r2.listRemoved === 0 &&
        r2.left === 0 &&
        r2.listSize === n + moved,
      'run 3: the leavers are confirmed and removed':
        r3.left === moved && r3.listRemoved === moved && r3.listAdded === 0 && r3.listSize === n,
      'run 4 (unchanged): 0 list writes':
        r4.listWrites === 0 && r4.listAdded === 0 && r4.listRemoved === 0 && r4.listSize === n,
      'list calls per run within 2 per 100 changed members + 2 name lookups': [r1, r2, r3, r4].every(
        (r) => r.listCallsTotal <= listCallBound(r.changedMembers),
      ),
      'no 429 from the API or HubSpot': runs.every((r) => r.api429 === 0 && r.hubspot429 === 0),
      ...(plain
        ? {
            'no extra search tokens: tokens per record with list: <= without': [r1, r2, r3, r4].every(
              (r) => r.tokensPerRecord <= plain.tokensPerRecord,
            ),
          }
        : {}),
    };
    return { runs, memory, checks };
  } finally {
    await deleteKeysUnder(redis, prefix);
    redis.disconnect();
    await host.stop();
  }
}
