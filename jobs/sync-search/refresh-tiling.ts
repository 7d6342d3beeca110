/**
 * Refresh on change, the first walk of a new split (docs/runs.md, Refresh on change): the walk takes the plan a full
 * walk would (few partitions of full pages), and the registry gets finer pieces, cut by free counts beside the walk,
 * so a later run re-counts them and walks only the few a change touched, and its stalest share.
 */
import type { Entity, Filter, Partition, SourceClient } from '../../src/source/index.js';

/** The registry's pieces: each about `pieceRecords`, with at most `maxCounts` count requests for the whole split. */
export interface TilingSplit {
  pieceRecords: number;
  maxCounts: number;
}

/**
 * Each piece about a count's share of the search, but no smaller than a tenth of a page: a re-count of a piece of a
 * few records saves fewer tokens than it costs counts (a small search would otherwise be cut into more partitions,
 * most of them empty, than it has records). A split of n counts makes at most n + 1 partitions, and a later run
 * re-counts them all and the search (twice when the sum differs): so at most maxCounts - 3 counts, for re-counts
 * within maxCounts.
 */
export function tilingSplit(counted: number, maxCounts: number, pageSize: number): TilingSplit {
  const minPiece = Math.ceil(pageSize / 10);
  return {
    pieceRecords: Math.max(minPiece, Math.ceil(counted / maxCounts)),
    maxCounts: Math.max(1, maxCounts - 3),
  };
}

/** The walk's own split takes a quarter of the budget at most: its partitions only need to keep the journeys busy. */
export function walkSplitCounts(tilingCounts: number): number {
  return Math.max(1, Math.floor(tilingCounts / 4));
}

export interface TilingInput {
  source: Pick<SourceClient, 'partition'>;
  entity: Entity;
  filter: Filter;
  counted: number;
  split: TilingSplit;
  /** Count requests the walk's split spent: the registry's split has the rest of the budget. */
  spent: number;
  maxJourneyRecords: number;
  signal: AbortSignal;
}

/**
 * The search cut by free counts into pieces that tile it (the empty ones kept: a record entering one is counted there).
 */
export function tileSearch(input: TilingInput): Promise<Partition[]> {
  const counts = Math.max(1, input.split.maxCounts - input.spent);
  return input.source.partition(input.entity, input.filter, {
    total: input.counted,
    uniform: true,
    pieceRecords: input.split.pieceRecords,
    maxCounts: counts,
    maxJourneyRecords: input.maxJourneyRecords,
    signal: input.signal,
  });
}
