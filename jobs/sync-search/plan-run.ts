/**
 * The plan of a run from the free count and the budget: what it will walk, under which caps, in how many journeys;
 * its forecast (plan-forecast.ts) and its partitions (plan-partitions.ts) are decided beside it.
 */
import type { AppConfig } from '../../src/config/index.js';
import { destinationCeiling } from '../../src/crm/destination-ceiling.js';
import {
  type Filter,
  type Partition,
  type PartitionProgress,
  type PieceRange,
  type SourceClient,
} from '../../src/source/index.js';
import { choosePartitions, MAX_REVEAL_OFFSET } from './plan-partitions.js';
import { forecastSpend, type SpendForecast } from './plan-forecast.js';
import type { ResolvedSearch } from './resolve-search.js';
import { maxJourneys, planJourneys } from './pacing/plan-journeys.js';

/** What a run will cost and how it will be walked, from the free count and the budget left. */
export interface RunPlan extends SpendForecast {
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
