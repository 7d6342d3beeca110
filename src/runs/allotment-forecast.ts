/**
 * The token allotment's forecast across searches, as pure functions: each scheduled search's runs until the token
 * reset (from its schedule), what one run is expected to spend (from its recent runs, else a free count), and the
 * moment the balance no longer covers the next run at this pace. Read by `plan --all` and the projected-exhaustion
 * alert; docs/runs.md ("The allotment forecast") says how it is computed and where it is wrong.
 */
import type { SavedSearch } from '../config/index.js';
import { atOnce, inTurns, type Turns } from '../shared/in-turns.js';
import type { RecentRun } from './run-overview.js';
import { scheduleTicks, type ScheduleTicks } from './schedule-ticks.js';

/** Recent runs the expected spend per run is averaged over. */
export const PACE_RUNS = 5;

/**
 * Start times (epoch ms) of the scheduled runs in (`fromMs`, `untilMs`), at most `max`: `every` is aligned to the
 * epoch as BullMQ's job schedulers align it; cron in its time zone. None for a manual-only search. Counting them needs
 * no list: `scheduleTicks` (./schedule-ticks.ts).
 */
export function scheduledRunTimes(
  schedule: SavedSearch['schedule'],
  fromMs: number,
  untilMs: number,
  max = Number.POSITIVE_INFINITY,
): number[] {
  const ticks = scheduleTicks(schedule, fromMs, untilMs);
  return Array.from({ length: Math.min(max, ticks.total) }, (_, k) => ticks.at(k) as number);
}

/** What one run of a search is expected to spend, and what that expectation rests on. */
export interface RunPace {
  tokens: number;
  credits: number;
  /** `history`: the mean of its last runs; `count`: a free count (no run yet: every match paid for). */
  basis: 'history' | 'count';
  /** Runs the mean is taken over (0 for a count). */
  runs: number;
  /**
   * Refresh mode `changed`, never run: its first run walks every record (`tokens` is then the refresh share of the
   * runs after it).
   */
  firstRunTokens?: number;
}

/**
 * The mean spend of the search's last `PACE_RUNS` runs that walked (completed or partial, not dry runs), rounded up;
 * null when it has none. `runs` is newest first, as the run history lists them.
 */
export function paceFromHistory(runs: readonly RecentRun[]): RunPace | null {
  const all = runs.filter((r) => !r.dryRun && (r.status === 'completed' || r.status === 'partial'));
  // Refresh mode `changed` (its last run says so): a run that walked a new split (the first) paid a full walk the
  // later ones do not, so the pace is that of the runs that walked only what changed and their share.
  const steady = all.filter((r) => r.refresh !== undefined && r.refresh.rebuilt === undefined);
  const walked = (all[0]?.refresh !== undefined && steady.length > 0 ? steady : all).slice(0, PACE_RUNS);
  if (walked.length === 0) return null;
  const mean = (f: (r: RecentRun) => number): number => Math.ceil(walked.reduce((n, r) => n + f(r), 0) / walked.length);
  return {
    tokens: mean((r) => r.tokensSpent),
    credits: mean((r) => r.creditsSpent),
    basis: 'history',
    runs: walked.length,
  };
}

/**
 * The pace of a search never run: every match of the free count (capped by `maxRecords`) paid for, credits too for
 * contacts. In refresh mode `changed` (`runsPerInterval`: its runs in `maxAgeDays`) only the first run walks every
 * match; each later one its refresh share, 1/runsPerInterval of them (the changes are not known before it has run).
 */
export function paceFromCount(
  counted: number,
  search: Pick<SavedSearch, 'maxRecords'>,
  withCredits: boolean,
  changed?: { runsPerInterval: number },
): RunPace {
  const records = search.maxRecords !== undefined ? Math.min(counted, search.maxRecords) : counted;
  const pace: RunPace = { tokens: records, credits: withCredits ? records : 0, basis: 'count', runs: 0 };
  if (!changed) return pace;
  const share = Math.ceil(records / Math.max(1, changed.runsPerInterval));
  return { ...pace, tokens: share, credits: withCredits ? share : 0, firstRunTokens: records };
}

export interface SearchPaceInput {
  search: string;
  schedule: SavedSearch['schedule'];
  pace: RunPace;
}

export interface SearchForecast {
  search: string;
  /** Scheduled runs before the reset. */
  runsLeft: number;
  nextRunAt: string | null;
  tokensPerRun: number;
  creditsPerRun: number;
  basis: RunPace['basis'];
  tokens: number;
  credits: number;
}

export interface AllotmentForecast {
  /** When the forecast was made and the reset it runs to (ISO). */
  at: string;
  resetAt: string;
  /** The allotment of the period and the balance the API last reported. */
  limit: number;
  remaining: number;
  /** Tokens kept back (`source.tokens.reserve`): runs stop at it, so it is not spendable. */
  reserve: number;
  searches: SearchForecast[];
  tokens: number;
  credits: number;
  /** remaining - reserve - tokens: negative when the searches need more than is left. */
  tokensLeftAtReset: number;
  /** The first run the balance no longer covers (ISO), null when every run until the reset is covered. */
  exhaustsAt: string | null;
  /** The search of that run. */
  exhaustedBy: string | null;
}

export interface ForecastInput {
  balance: { limit: number; remaining: number; resetAt: number };
  reserve?: number;
  searches: readonly SearchPaceInput[];
  now: Date;
}

/** Tokens of a search's first `n` runs (its first run may walk more, as `firstRunTokens` says). */
const spendOf = (pace: RunPace, n: number): number =>
  n === 0 ? 0 : (pace.firstRunTokens ?? pace.tokens) + (n - 1) * pace.tokens;

/**
 * Every scheduled run until the reset, in time order, each spending its search's pace: the totals, and the first run
 * whose spend goes past the balance less the reserve (runs at the same instant in the order of `searches`). The runs
 * are counted, not listed: the first run past the balance is found by bisecting time on the counts, so the cost
 * grows with the searches and the days to the reset, not with the runs.
 */
export function forecastAllotment(input: ForecastInput): AllotmentForecast {
  return atOnce(forecastSteps(input));
}

/** `forecastAllotment` in turns of the event loop (src/shared/in-turns.ts): for a server rendering it. */
export function forecastAllotmentInTurns(input: ForecastInput, turns?: Turns): Promise<AllotmentForecast> {
  return inTurns(forecastSteps(input), turns);
}

/** The forecast, a step per search's schedule and per bisection of time. */
function* forecastSteps(input: ForecastInput): Generator<void, AllotmentForecast> {
  const now = input.now.getTime();
  const reserve = input.reserve ?? 0;
  const { resetAt, remaining, limit } = input.balance;
  const ticks: ScheduleTicks[] = [];
  for (const s of input.searches) {
    ticks.push(scheduleTicks(s.schedule, now, resetAt));
    yield;
  }
  const searches = input.searches.map((s, i): SearchForecast => {
    const t = ticks[i] as ScheduleTicks;
    const next = t.at(0);
    return {
      search: s.search,
      runsLeft: t.total,
      nextRunAt: next === undefined ? null : new Date(next).toISOString(),
      tokensPerRun: s.pace.tokens,
      creditsPerRun: s.pace.credits,
      basis: s.pace.basis,
      tokens: spendOf(s.pace, t.total),
      credits: t.total * s.pace.credits,
    };
  });
  const tokens = searches.reduce((n, s) => n + s.tokens, 0);
  const exhausted =
    tokens > remaining - reserve ? yield* firstUncovered(input.searches, ticks, remaining - reserve, now) : null;
  return {
    at: input.now.toISOString(),
    resetAt: new Date(resetAt).toISOString(),
    limit,
    remaining,
    reserve,
    searches,
    tokens,
    credits: searches.reduce((n, s) => n + s.credits, 0),
    tokensLeftAtReset: remaining - reserve - tokens,
    exhaustsAt: exhausted ? new Date(exhausted.at).toISOString() : null,
    exhaustedBy: exhausted?.search ?? null,
  };
}

/** The run whose spend first goes past `spendable` (the runs' total is known to): the earliest time the runs before
 * it and at it pass the balance, then the searches running at that instant in config order. */
function* firstUncovered(
  searches: readonly SearchPaceInput[],
  ticks: readonly ScheduleTicks[],
  spendable: number,
  now: number,
): Generator<void, { at: number; search: string } | null> {
  const spentBefore = (t: number): number =>
    searches.reduce((n, s, i) => n + spendOf(s.pace, (ticks[i] as ScheduleTicks).before(t)), 0);
  // The smallest `hi` with spentBefore(hi) > spendable: the run past the balance is at hi - 1.
  let lo = now + 1;
  let hi = Math.max(...ticks.map((t) => (t.total > 0 ? (t.at(t.total - 1) as number) + 1 : lo)));
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if (spentBefore(mid) > spendable) hi = mid;
    else lo = mid + 1;
    yield;
  }
  const at = hi - 1;
  let spent = spentBefore(at);
  for (const [i, s] of searches.entries()) {
    const t = ticks[i] as ScheduleTicks;
    const n = t.before(at + 1);
    if (n === t.before(at)) continue;
    spent += spendOf(s.pace, n) - spendOf(s.pace, n - 1);
    if (spent > spendable) return { at, search: s.search };
  }
  return null;
}
