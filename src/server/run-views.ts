/**
 * What the run pages show, read from Redis: per search its schedule, next run, last run and the run in progress
 * (from the BullMQ job's progress, see jobs/sync-search.ts `updateProgress`).
 */
import type { Job, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { SavedSearch } from '../config/index.js';
import { SYNC_QUEUE, TICK_QUEUE } from '../queue/index.js';
import { OVERVIEW_RUNS, readOverviews, type RecentRun } from '../runs/run-overview.js';
import type { ParsedOverviews } from '../runs/parsed-overviews.js';
import type { RunSummary } from '../runs/run-summary.js';
import type { Turns } from '../shared/in-turns.js';

export interface LiveRun {
  runId: string;
  startedAt: number | undefined;
  fetched: number;
  target: number;
  tokensSpent: number;
  creditsSpent: number;
  /** Estimated time left (ms) from the rate so far; undefined until something was fetched. */
  etaMs: number | undefined;
  /** Queued, not started: it waits for these searches' runs (`after:`). */
  waitingFor?: string[];
  /** Delayed (paced: the budget resets, a CRM limit, a retry's backoff): when it is due again (epoch ms). */
  delayedUntil?: number;
}

export interface SearchRow {
  search: SavedSearch;
  schedule: string;
  nextRunAt: number | undefined;
  last: RunSummary | undefined;
  /** Its last runs (up to SPARK_RUNS), newest first, cut to the sparklines' and the pace's figures. */
  recent: RecentRun[];
  live: LiveRun | undefined;
}

/** Runs the overview's sparklines cover. */
export const SPARK_RUNS = OVERVIEW_RUNS;

export interface RunViewSources {
  redis: Redis;
  prefix: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any job data/result types
  queues: readonly Queue<any, any>[];
  searches: () => readonly SavedSearch[];
  /** The overviews parsed by earlier renders (the dashboard keeps them). */
  parsed?: ParsedOverviews;
}

export function scheduleText(search: SavedSearch): string {
  const s = search.schedule;
  if (!s) return 'manual';
  return 'cron' in s ? `cron ${s.cron}${s.timezone ? ` (${s.timezone})` : ''}` : `every ${s.every}`;
}

function liveRun(job: Job, now: number): LiveRun {
  const p = (typeof job.progress === 'object' && job.progress !== null ? job.progress : {}) as Partial<
    Record<'fetched' | 'target' | 'tokensSpent' | 'creditsSpent', number>
  > & { waitingFor?: string[] };
  const fetched = p.fetched ?? 0;
  const target = p.target ?? 0;
  const started = job.processedOn;
  const elapsed = started === undefined ? 0 : now - started;
  const etaMs = fetched > 0 && target > fetched && elapsed > 0 ? ((target - fetched) * elapsed) / fetched : undefined;
  const runId = String((job.data as { runId?: string }).runId ?? job.id);
  return {
    runId,
    startedAt: started,
    fetched,
    target,
    tokensSpent: p.tokensSpent ?? 0,
    creditsSpent: p.creditsSpent ?? 0,
    etaMs,
    ...(Array.isArray(p.waitingFor) ? { waitingFor: p.waitingFor } : {}),
  };
}

export async function activeRuns(src: RunViewSources): Promise<Map<string, LiveRun>> {
  const sync = src.queues.find((q) => q.name === SYNC_QUEUE);
  const live = new Map<string, LiveRun>();
  if (!sync) return live;
  const now = Date.now();
  for (const job of await sync.getJobs(['active'], 0, 100)) {
    const search = (job.data as { search?: string } | undefined)?.search;
    if (search) live.set(search, liveRun(job, now));
  }
  // A run that waits for the searches it runs after is delayed with `waitingFor` in its progress; any other delayed
  // run is paced, due at its score in the delayed set (BullMQ keeps the timestamp there, times 4096).
  for (const job of await sync.getJobs(['delayed'], 0, 100)) {
    const search = (job.data as { search?: string } | undefined)?.search;
    if (!search || live.has(search)) continue;
    const run = liveRun(job, now);
    if (!run.waitingFor) {
      const score = job.id === undefined ? null : await src.redis.zscore(sync.keys.delayed ?? '', job.id);
      if (score !== null) run.delayedUntil = Math.floor(Number(score) / 4096);
    }
    live.set(search, run);
  }
  return live;
}

/** Every search's row; the overviews parsed in the render's turns (src/shared/in-turns.ts). */
export async function searchRows(src: RunViewSources, turns?: Turns): Promise<SearchRow[]> {
  const tick = src.queues.find((q) => q.name === TICK_QUEUE);
  const [schedulers, live] = await Promise.all([
    tick ? tick.getJobSchedulers(0, -1) : Promise.resolve([]),
    activeRuns(src),
  ]);
  const next = new Map(schedulers.map((s) => [s.key, s.next]));
  const searches = src.searches();
  const overviews = await readOverviews(
    src.redis,
    searches.map((s) => s.name),
    src.prefix,
    { ...(turns ? { turns } : {}), ...(src.parsed ? { parsed: src.parsed } : {}) },
  );
  return searches.map((search, i): SearchRow => {
    const { last, recent } = overviews[i] ?? { last: undefined, recent: [] };
    return {
      search,
      schedule: scheduleText(search),
      nextRunAt: next.get(search.name),
      last,
      recent,
      live: live.get(search.name),
    };
  });
}
