/**
 * Refresh on change, once after a run's outcome and before the mirror step (docs/runs.md, Refresh on change): a
 * complete run's skipped partitions keep their last members in its matched set (so the mirror sees no leaver
 * there), and its walked partitions, with what they held, replace theirs in the registry. Any other ending changes
 * no registry. A complete run in refresh mode `full` drops the registries: the walks they describe are out of date.
 */
import type { SavedSearch } from '../../src/config/index.js';
import type { RunCheckpoint } from '../../src/runs/checkpoint-store.js';
import {
  dropRegistries,
  dropRunKeys,
  partitionId,
  RefreshRegistryStore,
  type KeptPartition,
  type RefreshState,
} from '../../src/runs/refresh-registry.js';
import type { RefreshSummary } from '../../src/runs/run-summary.js';
import type { RunOutcome } from './run-outcome.js';
import type { SyncDeps } from './run-request.js';

export interface RefreshStepInput {
  deps: Pick<SyncDeps, 'redis' | 'prefix'>;
  search: SavedSearch;
  runId: string;
  dryRun: boolean;
  outcome: RunOutcome;
  /** The run's checkpoint as it ended (its walked partitions), and its refresh state (absent: a full walk). */
  checkpoint: Readonly<RunCheckpoint> | undefined;
  state: RefreshState | undefined;
  /** The search's count and the count requests the run made (read once the registry's pieces are counted). */
  counted: number;
  counts: () => number;
  /**
   * A new split's registry pieces, counted beside the walk (jobs/sync-search/refresh-tiling.ts); null when that
   * failed: the registry then keeps the walk's partitions.
   */
  tiling?: Promise<KeptPartitionSource[] | null>;
}

/** A partition of the registry before it is stamped: its filter and count. */
export interface KeptPartitionSource {
  filter: Record<string, unknown>;
  count: number;
}

export async function refreshStep(input: RefreshStepInput): Promise<RefreshSummary | undefined> {
  const { deps, search, runId, outcome, state, checkpoint } = input;
  const complete = outcome.status === 'completed' && outcome.limitedBy === undefined;
  if (!state) {
    if (complete && !input.dryRun) await dropRegistries(deps.redis, search.name, deps.prefix);
    return undefined;
  }
  const walkedParts = checkpoint?.partitions ?? [];
  const walked = state.rebuilt ? { changed: 0, new: walkedParts.length, stale: 0 } : state.walked;
  // A complete walk of a new split: its registry is the finer tiling counted beside it.
  const tiled = complete && !input.dryRun && state.rebuilt ? await input.tiling : null;
  const summary: RefreshSummary = {
    mode: 'changed',
    kept: state.kept,
    walked,
    skipped: state.skipped.length,
    counts: input.counts(),
    fullTokens: input.counted,
    ...(state.rebuilt ? { rebuilt: state.rebuilt } : {}),
  };
  if (!complete) {
    if (!outcome.checkpoint.keep || input.dryRun) await dropRunKeys(deps.redis, search.name, runId, deps.prefix);
    return summary;
  }
  const store = new RefreshRegistryStore(deps.redis, search.name, state.instance, deps.prefix);
  const before = state.skipped.length > 0 ? await store.load() : null;
  const skippedIds = new Set(state.skipped);
  const kept = (before?.partitions ?? []).filter((p) => skippedIds.has(p.id));
  // Members found under a group (a new split's first walk) stay matched while any piece of it is skipped.
  const groups = [...new Set(kept.flatMap((p) => (p.group ? [p.group] : [])))];
  // A partition split mid-walk (the live index grew past the depth) has pieces without a planned count: the walk was
  // complete, but its partitions no longer tile as counted, so the next run splits afresh (a tiling counted beside
  // the walk still tiles the search).
  const split = !tiled && walkedParts.some((p) => p.count === undefined);
  const group = input.tiling ? { group: refreshGroup(search) } : {};
  const fresh: KeptPartition[] = (tiled ?? walkedParts).map((p) => ({
    id: partitionId(p.filter),
    filter: p.filter,
    count: p.count ?? 0,
    walkedAt: state.at,
    ...group,
  }));
  const partitions = [...fresh, ...kept];
  const registry = input.dryRun || split ? null : { fingerprint: state.fingerprint, savedAt: state.at, partitions };
  // Members gone from a walked partition are held until every partition holding records was walked after they went.
  const covered = partitions.reduce((min, p) => (p.count > 0 ? Math.min(min, p.walkedAt) : min), state.at);
  const { held } = await store.commit(runId, state.at, covered, [...state.skipped, ...groups], registry);
  if (split && !input.dryRun) await store.drop();
  return { ...summary, ...(held > 0 ? { held } : {}) };
}

/**
 * The id a new split's first walk records its members under (jobs/sync-search/refresh-tiling.ts): its partitions
 * are not the registry's pieces, so its members belong to the whole search until each piece is walked on its own.
 */
export function refreshGroup(search: Pick<SavedSearch, 'filter'>): string {
  return partitionId(search.filter as Record<string, unknown>);
}
