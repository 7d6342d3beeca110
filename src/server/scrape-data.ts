/**
 * Everything /metrics exports, read from Redis in one pass at scrape time: the dashboard process exports what
 * the workers did (run totals, last runs, budget ledger, governor state, queue counts) without running any of it.
 */
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { SavedSearch } from '../config/index.js';
import { listRuns } from '../runs/run-history.js';
import type { RunSummary } from '../runs/run-summary.js';
import { readRunTotals, type RunTotals } from '../runs/run-totals.js';
import { readBudgetStates, type BudgetState } from '../source/budget-states.js';
import type { GovernorSnapshot, GovernorSnapshotSource } from './governor-snapshot.js';

export const JOB_STATES = [
  'waiting',
  'active',
  'delayed',
  'prioritized',
  'waiting-children',
  'completed',
  'failed',
] as const;

export interface SearchScrape {
  search: string;
  destination: string;
  totals: RunTotals;
  last: RunSummary | undefined;
}

export interface QueueScrape {
  name: string;
  counts: Record<string, number>;
  schedulers: number;
  /** BullMQ's own metrics (kept by workers with `metrics` on): jobs completed / failed since they were enabled. */
  completedTotal: number;
  failedTotal: number;
}

export interface ScrapeData {
  searches: SearchScrape[];
  budgets: BudgetState[];
  creditCaps: { maxPerRun: number | null; maxPerDay: number | null };
  queues: QueueScrape[];
  governors: GovernorSnapshot[];
}

export interface ScrapeSources {
  redis: Redis;
  /** Key prefix of run history, totals and the budget ledger (the queue prefix). */
  prefix: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any job data/result types
  queues: readonly Queue<any, any>[];
  /** The current saved searches (a getter: SIGHUP swaps the config). */
  searches: () => readonly SavedSearch[];
  creditCaps?: () => { maxPerRun?: number; maxPerDay?: number };
  governorSnapshots?: GovernorSnapshotSource | undefined;
}

export async function loadScrapeData(src: ScrapeSources): Promise<ScrapeData> {
  const searches = src.searches();
  const caps = src.creditCaps?.() ?? {};
  const [perSearch, budgets, queues, governors] = await Promise.all([
    Promise.all(
      searches.map(async (s): Promise<SearchScrape> => {
        const [totals, last] = await Promise.all([
          readRunTotals(src.redis, s.name, { prefix: src.prefix }),
          listRuns(src.redis, s.name, { prefix: src.prefix, limit: 1 }),
        ]);
        return { search: s.name, destination: s.destination, totals, last: last[0] };
      }),
    ),
    readBudgetStates(src.redis, src.prefix),
    Promise.all(
      src.queues.map(async (q): Promise<QueueScrape> => {
        const [counts, schedulers, completed, failed] = await Promise.all([
          q.getJobCounts(...JOB_STATES),
          q.getJobSchedulersCount(),
          q.getMetrics('completed', 0, 0),
          q.getMetrics('failed', 0, 0),
        ]);
        return {
          name: q.name,
          counts,
          schedulers,
          completedTotal: completed.meta.count,
          failedTotal: failed.meta.count,
        };
      }),
    ),
    src.governorSnapshots ? src.governorSnapshots() : Promise.resolve([]),
  ]);
  return {
    searches: perSearch,
    budgets,
    creditCaps: { maxPerRun: caps.maxPerRun ?? null, maxPerDay: caps.maxPerDay ?? null },
    queues,
    governors,
  };
}
