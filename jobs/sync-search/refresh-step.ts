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
  /** The search's count and the count requests the run made. */
  counted: number;
  counts: number;
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
  const summary: RefreshSummary = {
    mode: 'changed',
    kept: state.kept,
    walked,
    skipped: state.skipped.length,
    counts: input.counts,
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
  // A partition split mid-walk (the live index grew past the depth) has pieces without a planned count: the walk was
  // complete, but its partitions no longer tile as counted, so the next run splits afresh.
  const split = walkedParts.some((p) => p.count === undefined);
  const fresh: KeptPartition[] = walkedParts.map((p) => ({
    id: partitionId(p.filter),
    filter: p.filter,
    count: p.count ?? 0,
    walkedAt: state.at,
  }));
  const partitions = [...fresh, ...kept];
  const registry = input.dryRun || split ? null : { fingerprint: state.fingerprint, savedAt: state.at, partitions };
  // Members gone from a walked partition are held until every partition holding records was walked after they went.
  const covered = partitions.reduce((min, p) => (p.count > 0 ? Math.min(min, p.walkedAt) : min), state.at);
  const { held } = await store.commit(runId, state.at, covered, state.skipped, registry);
  if (split && !input.dryRun) await store.drop();
  return { ...summary, ...(held > 0 ? { held } : {}) };
}
