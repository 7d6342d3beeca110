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

export interface ReadOverviewsOptions {
  /** The render's turns of the event loop (src/shared/in-turns.ts); default: turns of its own. */
  turns?: Turns;
  /** Overviews parsed by earlier reads, kept by a long-lived reader (the dashboard's `ParsedOverviews`). */
  parsed?: KeptOverviews;
}

/** What `readOverviews` asks of kept overviews (./parsed-overviews.ts). */
export interface KeptOverviews {
  parse(search: string, text: string): RunOverview;
  keepOnly(searches: readonly string[]): void;
}

/**
 * The overviews of `searches`, in their order: one round trip for all, parsed in turns of the event loop; a search
 * whose overview was never written (a history older than the overview) gets it built from its history now.
 */
export async function readOverviews(
  redis: Redis,
  searches: readonly string[],
  prefix: string = DEFAULT_RUNS_PREFIX,
  options: ReadOverviewsOptions = {},
): Promise<RunOverview[]> {
  const turns = options.turns ?? new Turns();
  const pipeline = redis.pipeline();
  for (const search of searches) pipeline.get(runKeys(search, prefix).overview);
  const replies = (await pipeline.exec()) ?? [];
  options.parsed?.keepOnly(searches);
  const overviews: (RunOverview | undefined)[] = [];
  for (const [i, [err, value]] of replies.entries()) {
    if (err) throw err;
    const search = searches[i] as string;
    if (typeof value !== 'string') overviews.push(undefined);
    else overviews.push(options.parsed ? options.parsed.parse(search, value) : (JSON.parse(value) as RunOverview));
    await turns.pause();
  }
  return Promise.all(searches.map((search, i) => overviews[i] ?? refreshOverview(redis, search, prefix)));
}
