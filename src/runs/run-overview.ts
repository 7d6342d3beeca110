/**
 * A search's overview: its last run's summary and its recent runs cut to the figures the /runs overview and the
 * allotment forecast read (records and tokens per run, what the pace needs). One small value per search, written
 * when a run is recorded, so the overview reads one value per search instead of parsing its history.
 */
import type { Redis } from 'ioredis';
import { Turns } from '../shared/in-turns.js';
import { DEFAULT_RUNS_PREFIX, runKeys } from './run-keys.js';
import type { RunSummary } from './run-summary.js';

/** Runs the overview keeps (the sparklines' length). */
export const OVERVIEW_RUNS = 30;

/** A recent run, cut to what the sparklines and the pace (allotment-forecast.ts `paceFromHistory`) read. */
export type RecentRun = Pick<RunSummary, 'status' | 'dryRun' | 'fetched' | 'tokensSpent' | 'creditsSpent'> & {
  refresh?: Pick<NonNullable<RunSummary['refresh']>, 'rebuilt'>;
};

export interface RunOverview {
  /** The newest run, whole (its status, counts, mirror line and warnings). */
  last: RunSummary | undefined;
  /** Up to OVERVIEW_RUNS runs, newest first. */
  recent: RecentRun[];
}

function recentRun(s: RunSummary): RecentRun {
  const cut: RecentRun = {
    status: s.status,
    dryRun: s.dryRun,
    fetched: s.fetched,
    tokensSpent: s.tokensSpent,
    creditsSpent: s.creditsSpent,
  };
  if (s.refresh) cut.refresh = s.refresh.rebuilt === undefined ? {} : { rebuilt: s.refresh.rebuilt };
  return cut;
}

/** The overview of a history, newest first. */
export function overviewOf(runs: readonly RunSummary[]): RunOverview {
  return { last: runs[0], recent: runs.slice(0, OVERVIEW_RUNS).map(recentRun) };
}

/** Writes the search's overview from its history's newest runs (after recording one). */
export async function refreshOverview(
  redis: Redis,
  search: string,
  prefix: string = DEFAULT_RUNS_PREFIX,
): Promise<RunOverview> {
  const keys = runKeys(search, prefix);
  const raw = await redis.lrange(keys.history, 0, OVERVIEW_RUNS - 1);
  const overview = overviewOf(raw.map((line) => JSON.parse(line) as RunSummary));
  await redis.set(keys.overview, JSON.stringify(overview));
  return overview;
}

/**
 * The overviews of `searches`, in their order: one round trip for all, parsed in turns of the event loop (`turns`: a
 * server's render); a search whose overview was never written (a history older than the overview) gets it built
 * from its history now.
 */
export async function readOverviews(
  redis: Redis,
  searches: readonly string[],
  prefix: string = DEFAULT_RUNS_PREFIX,
  turns: Turns = new Turns(),
): Promise<RunOverview[]> {
  const pipeline = redis.pipeline();
  for (const search of searches) pipeline.get(runKeys(search, prefix).overview);
  const replies = (await pipeline.exec()) ?? [];
  const parsed: (RunOverview | undefined)[] = [];
  for (const [err, value] of replies) {
    if (err) throw err;
    parsed.push(typeof value === 'string' ? (JSON.parse(value) as RunOverview) : undefined);
    await turns.pause();
  }
  return Promise.all(searches.map((search, i) => parsed[i] ?? refreshOverview(redis, search, prefix)));
}
