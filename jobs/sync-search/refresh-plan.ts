/**
 * Refresh on change, before the plan (docs/runs.md, Refresh on change): in refresh mode `changed`, a new run
 * re-counts the partitions of the search's last complete walk (free counts, through the account's count governor),
 * checks they still tile the search, and chooses what to walk (src/runs/refresh-selection.ts); without a registry
 * it splits the search into many small partitions and walks them all. A resumed attempt keeps what the first chose.
 */
import { refreshSettings } from '../../src/config/index.js';
import {
  lastRegistryInstance,
  partitionId,
  RefreshRegistryStore,
  type RefreshRegistry,
  type RefreshState,
} from '../../src/runs/refresh-registry.js';
import { refreshCadence, selectPartitions, type Recounted } from '../../src/runs/refresh-selection.js';
import { inLanes } from '../../src/shared/in-lanes.js';
import { fingerprintJourney, type Filter, type SourceClient } from '../../src/source/index.js';
import { planRun, type PlanOptions, type RunPlan, type SavedPartition } from './plan-run.js';
import { tilingSplit, walkSplitCounts } from './refresh-tiling.js';
import type { ResolvedSearch } from './resolve-search.js';
import type { SyncDeps } from './run-request.js';

/** Counts in flight at once while re-counting (the account's count governor paces them). */
const RECOUNT_LANES = 16;

export type RefreshPlanOptions = Pick<
  PlanOptions,
  'counted' | 'partitions' | 'pending' | 'walkRecords' | 'splitCounts'
>;

export interface RefreshPlanInput {
  deps: Pick<SyncDeps, 'config' | 'redis' | 'prefix' | 'now'>;
  source: SourceClient;
  resolved: ResolvedSearch;
  /** The CRM instance the run writes to (the sink's `identity()`), asked only in `changed` mode. */
  instance: () => Promise<string>;
  /** What the plan reuses of a resumed run (its checkpoint), and that checkpoint's refresh state. */
  resumed: { options: RefreshPlanOptions; state: RefreshState | undefined } | null;
  /** `--full-resync`: every record is sent again, so every partition is walked (a new split). */
  fullResync?: boolean;
  signal?: AbortSignal;
}

/** The plan's options and, in `changed` mode, the run's refresh state (the checkpoint keeps it). */
export async function planRefresh(
  input: RefreshPlanInput,
): Promise<{ options: RefreshPlanOptions; state?: RefreshState }> {
  const { deps, source, resolved, resumed, signal } = input;
  if (resumed) {
    const state = resumed.state;
    if (!state) return { options: resumed.options };
    const chosen = state.rebuilt
      ? state.split
        ? { splitCounts: walkSplitCounts(state.split.maxCounts) }
        : {}
      : { walkRecords: state.walkRecords ?? 0 };
    return { options: { ...resumed.options, ...chosen }, state };
  }
  const { search } = resolved;
  const settings = refreshSettings(deps.config, search);
  if (settings.mode !== 'changed') return { options: {} };
  const now = deps.now?.() ?? Date.now();
  const [counted, instance] = await Promise.all([
    source.count(search.entity, search.filter as Filter, { signal }),
    input.instance(),
  ]);
  const registry = await new RefreshRegistryStore(deps.redis, search.name, instance, deps.prefix).load();
  const fingerprint = refreshFingerprint(resolved);
  const base = { instance, fingerprint, at: now, skipped: [] as string[] };
  // A new split walks the plan a full walk would (few partitions, full pages); the registry's finer pieces are
  // counted beside the walk (jobs/sync-search/refresh-tiling.ts), within what the walk's split left of the budget.
  const split = tilingSplit(counted, settings.maxCounts, deps.config.source.pageSize);
  const rebuild = (rebuilt: NonNullable<RefreshState['rebuilt']>, kept: number) => ({
    options: { counted, splitCounts: walkSplitCounts(split.maxCounts) },
    state: { ...base, kept, walked: { changed: 0, new: 0, stale: 0 }, rebuilt, split },
  });
  if (!registry) return rebuild('first', 0);
  const kept = registry.partitions.length;
  if (input.fullResync) return rebuild('full_resync', kept);
  if (registry.fingerprint !== fingerprint) return rebuild('search_changed', kept);
  if (kept > settings.maxCounts - 2) return rebuild('too_many', kept);
  const recounted = await recount(source, search.entity, registry, signal);
  const sum = recounted.reduce((n, p) => n + p.countNow, 0);
  // The live index may move while the partitions are re-counted: one more count of the search tells a record that
  // moved meanwhile (the sum matches it now) from partitions that no longer tile the search.
  if (sum !== counted && sum !== (await source.count(search.entity, search.filter as Filter, { signal })))
    return rebuild('untiled', kept);
  const { walk, skipped } = selectPartitions(
    recounted,
    settings.maxAgeDays,
    refreshCadence(search.schedule, settings.maxAgeDays, now),
  );
  const partitions: SavedPartition[] = walk.map(({ partition: p }) => ({ filter: p.filter, count: p.countNow }));
  const walkRecords = walk.reduce((n, w) => n + w.partition.countNow, 0);
  const by = (reason: string): number => walk.filter((w) => w.reason === reason).length;
  return {
    options: { counted, partitions, walkRecords },
    state: {
      ...base,
      kept,
      walked: { changed: by('changed'), new: by('new'), stale: by('stale') },
      skipped: skipped.map((p) => p.id),
      walkRecords,
    },
  };
}

/**
 * `plan <search>`: the plan of the next run, in refresh mode `changed` with its choice (re-counting is free) in the
 * CRM instance the search's registry was last saved for (none kept: the first walk, a new split).
 */
export async function planNextRun(
  deps: RefreshPlanInput['deps'],
  source: SourceClient,
  resolved: ResolvedSearch,
  runId: string,
): Promise<{ plan: RunPlan; refresh?: RefreshState }> {
  const instance = async (): Promise<string> =>
    (await lastRegistryInstance(deps.redis, resolved.search.name, deps.prefix)) ?? 'none';
  const { options, state } = await planRefresh({ deps, source, resolved, instance, resumed: null });
  const plan = await planRun(source, deps.config, resolved, { runId, ...options });
  if (state?.rebuilt) state.walked = { changed: 0, new: plan.partitions.length, stale: 0 };
  return { plan, ...(state ? { refresh: state } : {}) };
}

/**
 * What the registry's partitions split: the search's entity, filter and view, and what it writes (a new mapping walks
 * every record again).
 */
export function refreshFingerprint({ search, view }: ResolvedSearch): string {
  const body = JSON.stringify({
    filter: search.filter,
    object: search.object,
    matchOn: search.matchOn,
    fields: search.fields,
    associate: search.associate ?? null,
  });
  return fingerprintJourney(search.entity, body, view, 'cursor');
}

async function recount(
  source: SourceClient,
  entity: ResolvedSearch['search']['entity'],
  registry: RefreshRegistry,
  signal: AbortSignal | undefined,
): Promise<Recounted[]> {
  return inLanes(registry.partitions, RECOUNT_LANES, async (p) => ({
    ...p,
    id: p.id || partitionId(p.filter),
    countNow: await source.count(entity, p.filter as Filter, { signal }),
  }));
}
