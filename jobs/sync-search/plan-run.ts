import type { AppConfig } from '../../src/config/index.js';
import { destinationCeiling } from '../../src/crm/destination-ceiling.js';
import { minPartitionRecords } from '../../src/crm/destinations.js';
import {
  fingerprintJourney,
  PartitionError,
  type Filter,
  type Partition,
  type PartitionProgress,
  type PieceRange,
  type SourceClient,
} from '../../src/source/index.js';
import type { ResolvedSearch } from './resolve-search.js';
import { maxJourneys, planJourneys } from './pacing/plan-journeys.js';

/** What a run will cost and how it will be walked, from the free count and the budget left. */
export interface RunPlan {
  search: string;
  entity: 'companies' | 'persons';
  counted: number;
  /** Records this run aims to fetch: the count, capped by `maxRecords`. */
  target: number;
  pageSize: number;
  pages: number;
  tokensNeeded: number;
  /** Credits the whole target needs: persons not revealed yet (reveal once), before any cap. */
  creditsNeeded: number;
  /** Tokens the run may spend now (balance - reserve - in flight); null when the balance is not known yet. */
  tokensSpendable: number | null;
  /** Credits the run may spend under the per-run and per-day caps; null when uncapped. */
  creditsSpendable: number | null;
  /** Set when the budget cannot cover the whole target. */
  shortfall?: 'tokens' | 'credits';
  /** With a shortfall: the cap that binds, spelled as the run summary's `stopReason`. */
  bindingCap?: 'token_reserve' | 'credit_cap_run' | 'credit_cap_day';
  partitions: Partition[];
  /** Journeys the walk starts with (sized from the rate and the count's latency; the walk re-sizes as it learns). */
  parallelism: number;
  /** Upper bound of journeys at once (`source.parallelism`, or the `auto` bound). */
  maxParallelism: number;
  /** Count requests the plan spent (the free count and the partition split); 0 for a resumed run. */
  countRequests: number;
  /**
   * The run's record cap (maxRecords or a dry run's sample below the count), shared by its journeys; null when every
   * partition is walked to its end.
   */
  quota: number | null;
  /** What set `quota`: the search's `maxRecords` or a dry run's `--sample` (the summary's `limitedBy`). */
  quotaBy?: 'max_records' | 'sample';
  estimatedMs: number;
  /** The search rate the estimate assumes: learned from the API's RateLimit-* headers, else the configured fallback. */
  rate: { requests: number; windowSeconds: number; source: 'headers' | 'fallback' };
  /**
   * Credits the run is expected to spend: persons not revealed before (or stale), within the credit caps. A dry run
   * spends none: its forecast is a real run's (of the whole search, also under `--sample`).
   */
  forecastCredits: number;
  /** Search tokens the run is expected to spend, including the extra requests that reveal persons one run at a time. */
  forecastTokens: number;
  /** Persons expected to pass by without a reveal (revealed before and still fresh). */
  forecastRevealSkipped: number;
  /**
   * How the forecast was made: `no-contacts`, `first-run` (every person is new) or `last-run-tally` (see docs/runs.md).
   */
  forecastMethod: 'no-contacts' | 'first-run' | 'last-run-tally';
}

/** What a run will spend, said before its first token: a dry run walks without contacts, so it pays no credit. */
export interface RunSpend {
  dryRun: boolean;
  /** Records the walk takes (the count, capped by `maxRecords` or a dry run's `--sample`). */
  records: number;
  tokens: number;
  credits: number;
  /** A dry run of a contacts search: what a real run would spend now, by the plan's forecast. */
  realRun?: { tokens: number; credits: number };
}

export function runSpend(plan: RunPlan, dryRun: boolean): RunSpend {
  if (!dryRun) return { dryRun, records: plan.target, tokens: plan.forecastTokens, credits: plan.forecastCredits };
  return {
    dryRun,
    records: plan.target,
    tokens: plan.target,
    credits: 0,
    ...(plan.forecastMethod === 'no-contacts'
      ? {}
      : { realRun: { tokens: plan.forecastTokens, credits: plan.forecastCredits } }),
  };
}

/** A partition of a run being resumed, as its checkpoint holds it. */
export interface SavedPartition {
  filter: Filter;
  /** Its free count when planned (absent in checkpoints of older versions and for pieces split off during a walk). */
  count?: number;
}

export interface PlanOptions {
  runId: string;
  signal?: AbortSignal;
  /** Partitions saved by a run being resumed: reused as they are (a re-split could differ and lose the cursors). */
  partitions?: SavedPartition[];
  counted?: number;
  /** A resumed run whose split was cut short: the pieces it had not settled and the counts it had left. */
  pending?: { pieces: PieceRange[]; countsLeft: number };
  /**
   * The destination's ceiling as its remote answered it (records per second; null: none or not known), awaited before
   * the split is sized; without it (or when it is null) the ceiling the config implies.
   */
  ceiling?: Promise<number | null>;
  /**
   * Refresh on change: the run walks only `partitions` (chosen from the search's registry), holding this many
   * records; its target, whatever the search's count. The plan is complete with them, even when there are none.
   */
  walkRecords?: number;
  /** A dry run: its journeys never ask for contacts (SourceClient.prepareReveal), and `sample` caps its records. */
  dryRun?: { sample?: number };
  /**
   * Count requests the split may spend: refresh on change without a registry walks the plan a full walk would, and
   * keeps most of its count budget for the registry's finer pieces (jobs/sync-search/refresh-tiling.ts).
   */
  splitCounts?: number;
}

/** A plan as soon as the free count decides it (the budget, the shortfall, the forecast), before its partitions. */
export interface PlanStart {
  /**
   * Final except what the partitions decide: `partitions`, `parallelism`, `pages`, `estimatedMs` and `countRequests`
   * are final in what `splitRest` resolves with (streamed: `partitions` is empty here and the estimates assume one).
   */
  plan: RunPlan;
  /**
   * Whether partitions are still to split (`splitRest` spends counts): a cursor search without contacts, not fully
   * planned yet.
   */
  streams: boolean;
  /**
   * Splits what is still to split. `onProgress` hears every settled partition as soon as it is settled (before
   * the next round of counts), and the pieces still to cut: a walk may start the settled ones meanwhile.
   */
  splitRest(onProgress?: (progress: PartitionProgress) => void, signal?: AbortSignal): Promise<RunPlan>;
}

const finite = (n: number): number | null => (Number.isFinite(n) ? n : null);

/**
 * Plans one run: free count, budget check (tokens incl. the reserve, credits under both caps, maxRecords) and
 * partitions (each journey under the depth limit; P similar journeys walked in parallel when there is enough work).
 * With `maxRecords` below the count the journeys share one record cap (pages reserve from it), so the cap is exact
 * even with partitions walked in parallel. The whole plan at once: what `plan` prints; a run streams it (`startPlan`).
 */
export async function planRun(
  source: SourceClient,
  config: AppConfig,
  resolved: ResolvedSearch,
  options: PlanOptions,
): Promise<RunPlan> {
  return (await startPlan(source, config, resolved, options)).splitRest(undefined, options.signal);
}

/**
 * The plan up to what the free count decides, and the split of the rest to come (`splitRest`), so the first page does
 * not wait for every round of counts. Budget refusal needs only the count. Contacts searches are planned whole
 * here: their forecast (tokens to reach persons beyond offset 10,000) and their reveal registration need every
 * partition's count, and their split falls back to the depth limit when the offset limit cannot hold.
 */
export async function startPlan(
  source: SourceClient,
  config: AppConfig,
  resolved: ResolvedSearch,
  options: PlanOptions,
): Promise<PlanStart> {
  const { search, view } = resolved;
  const entity = search.entity;
  const pageSize = config.source.pageSize;
  const countsBefore = source.stats().requests.count;
  const countStarted = performance.now();
  const counted = options.counted ?? (await source.count(entity, search.filter as Filter, { signal: options.signal }));
  // The count's HTTP time stands in for page latency (a first request's token fetch and connection excluded).
  const countMs =
    options.counted === undefined
      ? (source.searchTimings().countLatencyP50Ms ?? performance.now() - countStarted)
      : null;
  const capped = search.maxRecords !== undefined && search.maxRecords < counted;
  const planned = capped ? (search.maxRecords as number) : (options.walkRecords ?? counted);
  const sample = options.dryRun?.sample;
  const sampled = sample !== undefined && sample < planned;
  const target = sampled ? sample : planned;
  const quotaBy = sampled ? ('sample' as const) : capped ? ('max_records' as const) : undefined;
  const withCredits = entity === 'persons' && view.includes('contacts');
  // A destination that takes fewer pages than the account may search bounds the journeys the walk will have, and
  // so the split's guided sizes.
  const journeys = await planJourneys(
    source,
    config,
    countMs,
    (await options.ceiling) ?? destinationCeiling(resolved.destination),
  );
  const maxParallelism = search.mode === 'offset' ? 1 : maxJourneys(config);
  const saved = (options.partitions ?? []).map((p) => ({
    filter: p.filter,
    count: p.count ?? 0,
    headcount: { gte: 0, lte: 0 },
  }));
  const resume =
    options.pending && options.pending.pieces.length > 0
      ? {
          pending: options.pending.pieces,
          settledCounts: (options.partitions ?? []).flatMap((p) => (p.count === undefined ? [] : [p.count])),
        }
      : undefined;
  // Nothing left to split: a resumed plan that was complete, or one with nothing settled nor pending (split afresh).
  const complete =
    (options.walkRecords !== undefined || (options.partitions !== undefined && options.partitions.length > 0)) &&
    !resume;
  const split = (
    onProgress?: (p: PartitionProgress) => void,
    signal?: AbortSignal,
    maxCounts?: number,
  ): Promise<Partition[]> =>
    choosePartitions(source, config, resolved, counted, target, journeys, {
      signal,
      onProgress,
      resume,
      maxCounts,
      splitCounts: options.splitCounts,
    });
  // Contacts: the split first (see above), so the forecast sees every partition.
  const early = complete
    ? saved
    : withCredits
      ? [...saved, ...(await split(undefined, options.signal, options.pending?.countsLeft))]
      : null;

  const tokensSpendable = finite(await source.ledger.spendableTokens());
  const credits = withCredits ? await source.ledger.creditHeadroom(options.runId) : null;
  const creditsSpendable = credits ? finite(credits.spendable) : null;
  const deepRecords = (early ?? []).reduce((n, p) => n + Math.max(0, p.count - MAX_REVEAL_OFFSET), 0);
  const { creditsNeeded, ...forecast } = await forecastSpend(
    source,
    config,
    resolved,
    options.runId,
    // a sampled dry run forecasts the real run, not its sample
    { counted, target: planned, journeys: early?.length ?? 1, deepRecords },
    creditsSpendable,
    options.dryRun !== undefined,
  );
  const shortfall =
    tokensSpendable !== null && tokensSpendable < target
      ? 'tokens'
      : options.dryRun === undefined && creditsSpendable !== null && creditsSpendable < creditsNeeded
        ? 'credits'
        : undefined;
  // Which cap binds is kept: a stop at the daily cap must not be reported as the per-run one.
  const bindingCap =
    shortfall === 'tokens'
      ? 'token_reserve'
      : shortfall === 'credits'
        ? (credits?.binding ?? 'credit_cap_run')
        : undefined;
  const learned = await source.rateLimit('search');
  const rate = learned
    ? { requests: learned.limit, windowSeconds: learned.windowMs / 1000, source: learned.mode }
    : {
        requests: config.source.fallbackLimits.search,
        windowSeconds: config.source.fallbackLimits.windowSeconds,
        source: 'fallback' as const,
      };

  /** The figures the partitions decide. */
  const withPartitions = (plan: RunPlan, partitions: Partition[]): RunPlan => {
    const pages = Math.ceil(target / pageSize) + Math.max(0, partitions.length - 1);
    return {
      ...plan,
      partitions,
      pages,
      parallelism: search.mode === 'offset' ? 1 : Math.max(1, Math.min(journeys, partitions.length)),
      countRequests: source.stats().requests.count - countsBefore,
      // Pages are bounded by the account's search rate; journeys in parallel only help up to that.
      estimatedMs: Math.round((pages / rate.requests) * rate.windowSeconds * 1000),
    };
  };
  const head: RunPlan = withPartitions(
    {
      search: search.name,
      entity,
      counted,
      target,
      pageSize,
      pages: 0,
      tokensNeeded: target,
      creditsNeeded,
      tokensSpendable,
      creditsSpendable,
      ...(shortfall ? { shortfall } : {}),
      ...(bindingCap ? { bindingCap } : {}),
      partitions: [],
      parallelism: 1,
      maxParallelism,
      countRequests: 0,
      quota: quotaBy ? target : null,
      ...(quotaBy ? { quotaBy } : {}),
      estimatedMs: 0,
      rate,
      ...forecast,
    },
    early ?? [],
  );
  if (early) {
    return {
      plan: head,
      streams: false,
      splitRest: async (onProgress) => {
        // Every partition is in the plan already (and so in a new checkpoint): only the plan's completion to tell.
        onProgress?.({ settled: [], pending: [], countsLeft: 0 });
        return head;
      },
    };
  }
  // A streamed run starts journeys before the split is known: sized from the rate and the count's latency.
  const plan: RunPlan = { ...head, parallelism: search.mode === 'offset' ? 1 : journeys };
  return {
    plan,
    streams: true,
    splitRest: async (onProgress, signal) =>
      withPartitions(
        plan,
        [...saved, ...(await split(onProgress, signal, options.pending?.countsLeft))].sort((a, b) => b.count - a.count),
      ),
  };
}

/** Key of a search's reveal tally: its name and what it walks (an edited filter starts a new tally). */
export function revealSearchKey(resolved: ResolvedSearch): string {
  return (
    `${resolved.search.name}:` +
    `${fingerprintJourney(resolved.search.entity, JSON.stringify(resolved.search.filter), resolved.view, 'cursor')}`
  );
}

type Forecast = Pick<RunPlan, 'forecastCredits' | 'forecastTokens' | 'forecastRevealSkipped' | 'forecastMethod'>;

/**
 * Tokens and credits this run is expected to spend. Contacts searches register the run for reveal-once journeys
 * and forecast from the search's last run (persons it saw that are still fresh are not paid again); a credit cap
 * below the forecast stops the run early, so tokens are scaled down with it.
 */
async function forecastSpend(
  source: SourceClient,
  config: AppConfig,
  resolved: ResolvedSearch,
  runId: string,
  walk: { counted: number; target: number; journeys: number; deepRecords: number },
  creditsSpendable: number | null,
  dryRun: boolean,
): Promise<Forecast & { creditsNeeded: number }> {
  const withCredits = resolved.search.entity === 'persons' && resolved.view.includes('contacts');
  if (!withCredits)
    return {
      creditsNeeded: 0,
      forecastCredits: 0,
      forecastTokens: walk.target,
      forecastRevealSkipped: 0,
      forecastMethod: 'no-contacts',
    };
  const r = await source.prepareReveal(
    runId,
    revealSearchKey(resolved),
    { ...walk, pageSize: config.source.pageSize },
    { dryRun, log: { search: resolved.search.name, segment: resolved.search.segment } },
  );
  if (creditsSpendable === null || creditsSpendable >= r.credits || r.credits === 0) {
    return {
      creditsNeeded: r.credits,
      forecastCredits: r.credits,
      forecastTokens: r.tokens,
      forecastRevealSkipped: r.revealSkipped,
      forecastMethod: r.method,
    };
  }
  const share = creditsSpendable / r.credits;
  return {
    creditsNeeded: r.credits,
    forecastCredits: creditsSpendable,
    forecastTokens: Math.round(r.tokens * share),
    forecastRevealSkipped: Math.round(r.revealSkipped * share),
    forecastMethod: r.method,
  };
}

/** Largest `offset` the API accepts: contacts partitions are kept within it where they can be. */
const MAX_REVEAL_OFFSET = 10_000;
/** Count requests one plan may spend on splitting: half the documented count limit (500 per minute). */
const MAX_PLAN_COUNTS = 250;

interface SplitOptions {
  signal: AbortSignal | undefined;
  onProgress: ((progress: PartitionProgress) => void) | undefined;
  /** A split cut short, to go on with (PartitionOptions.resume), and the counts it had left. */
  resume: { pending: PieceRange[]; settledCounts: number[] } | undefined;
  maxCounts: number | undefined;
  splitCounts: PlanOptions['splitCounts'];
}

async function choosePartitions(
  source: SourceClient,
  config: AppConfig,
  { search, destination, view }: ResolvedSearch,
  counted: number,
  target: number,
  journeys: number,
  { signal, onProgress, resume, maxCounts, splitCounts }: SplitOptions,
): Promise<Partition[]> {
  const whole: Partition = { filter: search.filter as Filter, count: counted, headcount: { gte: 0, lte: 0 } };
  const depth = config.source.maxJourneyRecords;
  const alone = (): Partition[] => {
    onProgress?.({ settled: [whole], pending: [], countsLeft: 0 });
    return [whole];
  };
  if (search.mode === 'offset') return alone();
  // A capped run shorter than one journey walks the whole filter once and stops at the cap.
  if (target <= depth && target < counted) return alone();
  const { pageSize } = config.source;
  // A partition's last write is partial: each piece holds at least what the destination's port finds worth a write
  // of its own (a CRM with large bulk writes asks for pieces of one such write).
  const minPiece = minPartitionRecords(destination, pageSize);
  // Guided sizes (src/source/partitioner.ts): large pieces first, each no larger than what the other journeys walk
  // after it; the last ones about a page per journey (a small run: an eighth of its share per journey), so the
  // walk's last stretch is short and few partial pages (one per partition) are spent.
  const pieceRecords = Math.max(
    minPiece,
    Math.min(pageSize * journeys, Math.floor(counted / (8 * Math.max(1, journeys)))),
  );
  if (!resume && counted <= depth && (counted <= pieceRecords || maxJourneys(config) === 1)) return alone();
  const learned = await source.rateLimit('count');
  const split = (maxJourneyRecords: number): Promise<Partition[]> =>
    source.partition(search.entity, search.filter as Filter, {
      maxJourneyRecords,
      pieceRecords,
      journeys,
      total: counted,
      maxCounts:
        maxCounts ??
        Math.min(
          splitCounts ?? MAX_PLAN_COUNTS,
          MAX_PLAN_COUNTS,
          Math.floor((learned?.limit ?? 2 * MAX_PLAN_COUNTS) / 2),
        ),
      signal,
      ...(onProgress ? { onProgress } : {}),
      ...(resume ? { resume } : {}),
    });
  // Contacts journeys stay within the largest offset where the data allows, so every person to reveal is reached
  // by offset (one token each; src/source/reveal-page.ts); else the depth limit is the only bound. (Contacts plans
  // are not streamed: a first split given up for the second has told nobody of its partitions.)
  const reveals = search.entity === 'persons' && view.includes('contacts');
  const parts =
    reveals && depth > MAX_REVEAL_OFFSET
      ? await split(MAX_REVEAL_OFFSET).catch((err: unknown) => {
          if (err instanceof PartitionError) return split(depth);
          throw err;
        })
      : await split(depth);
  return parts.filter((p) => p.count > 0);
}
