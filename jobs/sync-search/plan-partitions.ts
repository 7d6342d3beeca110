/**
 * How a plan splits a search into partitions walked as journeys side by side: none for a small or capped run, else
 * guided sizes from the free counts (src/source/partitioner.ts), contacts journeys kept within the largest offset.
 */
import type { AppConfig } from '../../src/config/index.js';
import { minPartitionRecords } from '../../src/crm/destinations.js';
import {
  PartitionError,
  type Filter,
  type Partition,
  type PartitionProgress,
  type PieceRange,
  type SourceClient,
} from '../../src/source/index.js';
import type { ResolvedSearch } from './resolve-search.js';
import { maxJourneys } from './pacing/plan-journeys.js';

/** Largest `offset` the API accepts: contacts partitions are kept within it where they can be. */
export const MAX_REVEAL_OFFSET = 10_000;
/** Count requests one plan may spend on splitting: half the documented count limit (500 per minute). */
const MAX_PLAN_COUNTS = 250;

interface SplitOptions {
  signal: AbortSignal | undefined;
  onProgress: ((progress: PartitionProgress) => void) | undefined;
  /** A split cut short, to go on with (PartitionOptions.resume), and the counts it had left. */
  resume: { pending: PieceRange[]; settledCounts: number[] } | undefined;
  maxCounts: number | undefined;
  splitCounts: number | undefined;
}

export async function choosePartitions(
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
