/**
 * Per-search counters that only ever grow, bumped once when a run finishes: `/metrics` exports them as Prometheus
 * `_total` counters. The run history is trimmed, so totals derived from it would go down; these never do.
 * Dry runs write nothing and are not counted.
 */
import { readFileSync } from 'node:fs';
import type { Redis } from 'ioredis';
import { DEFAULT_RUNS_PREFIX } from './run-keys.js';
import type { RunSummary } from './run-summary.js';

/** Upper bounds (seconds) of the run-duration histogram buckets; `+Inf` is the run count. */
export const RUN_DURATION_BUCKETS_SECONDS = [1, 5, 15, 60, 300, 900, 1800, 3600, 7200, 21600] as const;

export const TOTAL_COUNTERS = [
  'fetched',
  'created',
  'updated',
  'unchanged',
  'rejected',
  'linkErrors',
  'tokensSpent',
  'creditsSpent',
  'requestsSearch',
  'requestsCount',
  'throttled',
  'entered',
  'left',
  'leaveActions',
  'listAdded',
  'listRemoved',
] as const;
export type TotalCounter = (typeof TOTAL_COUNTERS)[number];

export interface RunTotals {
  counters: Record<TotalCounter, number>;
  /**
   * Finished runs by `${status}|${stopReason, else limitedBy, else 'none'}` (`completed|max_records`: at the user's
   * limit).
   */
  runs: Record<string, number>;
  duration: { sum: number; count: number; buckets: Record<string, number> };
}

export function runTotalsKey(search: string, prefix: string = DEFAULT_RUNS_PREFIX): string {
  return `${prefix}:run:${search}:totals`;
}

function counterValues(s: RunSummary): Record<TotalCounter, number> {
  return {
    fetched: s.fetched,
    created: s.created,
    updated: s.updated,
    unchanged: s.unchanged,
    rejected: s.rejected,
    linkErrors: s.linkErrors ?? 0,
    tokensSpent: s.tokensSpent,
    creditsSpent: s.creditsSpent,
    requestsSearch: s.requests.search,
    requestsCount: s.requests.count,
    throttled: s.throttled,
    entered: s.entered ?? 0,
    left: s.left ?? 0,
    leaveActions: s.leaveActions ?? 0,
    listAdded: s.listAdded ?? 0,
    listRemoved: s.listRemoved ?? 0,
  };
}

const ADD_RUN_LUA = readFileSync(new URL('./run-totals-add.lua', import.meta.url), 'utf8');

interface RunTotalsCommands {
  runTotalsAdd(totalsKey: string, runKey: string, ...args: (string | number)[]): Promise<unknown>;
}

/** The script, defined once per connection (ioredis sends EVALSHA, and the body only when Redis lacks it). */
function commands(redis: Redis): RunTotalsCommands {
  if (!('runTotalsAdd' in redis)) redis.defineCommand('runTotalsAdd', { numberOfKeys: 2, lua: ADD_RUN_LUA });
  return redis as unknown as RunTotalsCommands;
}

/** How long a run id's last counters are kept to take deltas of its retries (as long as a delayed run may wait). */
const RUN_COUNTERS_TTL_SECONDS = 14 * 24 * 3600;

/**
 * Adds one finished run (attempt) in one script, so a scrape never sees half of it: runs by status and stop reason
 * and the duration histogram count every recorded summary; record, token, credit and request counters add only
 * what the run id has not recorded before.
 */
export async function addRunTotals(
  redis: Redis,
  summary: RunSummary,
  options: { prefix?: string } = {},
): Promise<void> {
  if (summary.dryRun) return;
  const key = runTotalsKey(summary.search, options.prefix);
  const counters = Object.entries(counterValues(summary)).flatMap(([name, value]) => [name, String(value)]);
  await commands(redis).runTotalsAdd(
    key,
    `${key}:run:${summary.runId}`,
    RUN_COUNTERS_TTL_SECONDS,
    `runs|${summary.status}|${summary.stopReason ?? summary.limitedBy ?? 'none'}`,
    summary.durationMs / 1000,
    RUN_DURATION_BUCKETS_SECONDS.length,
    ...RUN_DURATION_BUCKETS_SECONDS,
    ...counters,
  );
}

export async function readRunTotals(
  redis: Redis,
  search: string,
  options: { prefix?: string } = {},
): Promise<RunTotals> {
  const raw = await redis.hgetall(runTotalsKey(search, options.prefix));
  const counters = Object.fromEntries(TOTAL_COUNTERS.map((c) => [c, Number(raw[c] ?? 0)])) as Record<
    TotalCounter,
    number
  >;
  const runs: Record<string, number> = {};
  const buckets: Record<string, number> = {};
  for (const [field, value] of Object.entries(raw)) {
    if (field.startsWith('runs|')) runs[field.slice(5)] = Number(value);
    else if (field.startsWith('duration|le|')) buckets[field.slice(12)] = Number(value);
  }
  return {
    counters,
    runs,
    duration: { sum: Number(raw['duration|sum'] ?? 0), count: Number(raw['duration|count'] ?? 0), buckets },
  };
}
