import type { Redis } from 'ioredis';
import { runKeys, DEFAULT_RUNS_PREFIX } from './run-keys.js';
import type { RunSummary } from './run-summary.js';
import { refreshOverview } from './run-overview.js';
import { addRunTotals } from './run-totals.js';
import { eraseMentions, type KeyHit } from '../shared/key-erase.js';

export interface RunHistoryOptions {
  prefix?: string;
  /** Summaries kept per search; older ones are dropped (the list stays bounded). */
  keep?: number;
}

const DEFAULT_HISTORY_KEEP = 50;

/** Appends a finished run's summary (counts only: no records, no contact details) to the search's history. */
export async function recordRun(redis: Redis, summary: RunSummary, options: RunHistoryOptions = {}): Promise<void> {
  const key = runKeys(summary.search, options.prefix ?? DEFAULT_RUNS_PREFIX).history;
  const keep = options.keep ?? DEFAULT_HISTORY_KEEP;
  await redis
    .multi()
    .lpush(key, JSON.stringify(summary))
    .ltrim(key, 0, keep - 1)
    .exec();
  await refreshOverview(redis, summary.search, options.prefix ?? DEFAULT_RUNS_PREFIX);
  await addRunTotals(redis, summary, options);
}

/** The most recent summaries of a search, newest first. */
export async function listRuns(
  redis: Redis,
  search: string,
  options: { prefix?: string; limit?: number } = {},
): Promise<RunSummary[]> {
  const key = runKeys(search, options.prefix ?? DEFAULT_RUNS_PREFIX).history;
  const raw = await redis.lrange(key, 0, (options.limit ?? 20) - 1);
  return raw.map((line) => JSON.parse(line) as RunSummary);
}

/**
 * The summary of run `runId` if it already ended `completed` or `partial` (among the search's recent runs): a later
 * attempt of the same queued run (its job stalled while the first worker lived on) returns it instead of walking again.
 */
export async function findFinishedRun(
  redis: Redis,
  search: string,
  runId: string,
  options: { prefix?: string } = {},
): Promise<RunSummary | null> {
  const runs = await listRuns(redis, search, { ...options, limit: 50 });
  return runs.find((r) => r.runId === runId && (r.status === 'completed' || r.status === 'partial')) ?? null;
}

/** Erasure (`forget`): summaries (warnings, reasons) naming one of `texts` keep their counts, the names erased. */
export async function forgetInHistories(
  redis: Redis,
  texts: readonly string[],
  apply: boolean,
  prefix: string = DEFAULT_RUNS_PREFIX,
): Promise<KeyHit[]> {
  const keys = runKeys('*', prefix);
  // The overview holds the last summary whole (run-overview.ts): its warnings too.
  const [history, overview] = await Promise.all([
    eraseMentions(redis, keys.history, texts, 'redact', apply),
    eraseMentions(redis, keys.overview, texts, 'redact', apply),
  ]);
  return [...history, ...overview];
}
