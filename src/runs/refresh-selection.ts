/**
 * Which kept partitions a run in refresh mode `changed` walks (docs/runs.md, Refresh on change), as pure functions:
 * those whose count changed since their last walk, and the stalest unchanged ones, so every partition is walked at
 * least once every `maxAgeDays`, spread evenly over the search's runs in that interval.
 */
import type { SavedSearch } from '../config/index.js';
import { scheduleTicks } from './schedule-ticks.js';
import type { KeptPartition } from './refresh-registry.js';

const DAY_MS = 24 * 3600_000;

/** Why a partition is walked: its count changed, it was never walked (a new split), or it is the stalest share. */
export type WalkReason = 'changed' | 'new' | 'stale';

/** A kept partition and its free count now. */
export interface Recounted extends KeptPartition {
  countNow: number;
}

export interface RefreshCadence {
  /**
   * Runs of the search in the next `maxAgeDays` (at least 1): each walks about 1/runs of the partitions as its share.
   */
  runsPerInterval: number;
  /** When the next run is due (ms since the epoch). */
  nextRunAt: number;
}

/** The search's runs in the next `maxAgeDays` from its schedule; a search without schedule is assumed to run daily. */
export function refreshCadence(schedule: SavedSearch['schedule'], maxAgeDays: number, now: number): RefreshCadence {
  const ticks = scheduleTicks(schedule, now, now + maxAgeDays * DAY_MS + 1);
  if (!schedule || ticks.total === 0) return { runsPerInterval: Math.max(1, maxAgeDays), nextRunAt: now + DAY_MS };
  return { runsPerInterval: ticks.total, nextRunAt: ticks.at(0) as number };
}

export interface Selection {
  walk: { partition: Recounted; reason: WalkReason }[];
  skipped: Recounted[];
}

/**
 * Walks every partition whose count changed, then the stalest unchanged ones that hold records: as many as one run's
 * share (kept partitions / runs per interval, rounded up), more when some would pass `maxAgeDays` before the next
 * run. Ties go by id, so the share moves through the partitions in a stable order.
 */
export function selectPartitions(
  partitions: readonly Recounted[],
  maxAgeDays: number,
  cadence: RefreshCadence,
): Selection {
  const walk: Selection['walk'] = [];
  const unchanged: Recounted[] = [];
  for (const p of partitions) {
    if (p.countNow !== p.count) walk.push({ partition: p, reason: 'changed' });
    else unchanged.push(p);
  }
  // An empty partition has nothing to refresh: walked again only once its count moves.
  const holding = unchanged
    .filter((p) => p.countNow > 0)
    .sort((a, b) => a.walkedAt - b.walkedAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const share = Math.ceil(
    partitions.filter((p) => p.countNow > 0 || p.count > 0).length / Math.max(1, cadence.runsPerInterval),
  );
  const maxAgeMs = maxAgeDays * DAY_MS;
  const due = holding.filter((p) => cadence.nextRunAt - p.walkedAt > maxAgeMs).length;
  const stale = holding.slice(0, Math.max(share, due));
  for (const p of stale) walk.push({ partition: p, reason: 'stale' });
  const walked = new Set(walk.map((w) => w.partition.id));
  return { walk, skipped: partitions.filter((p) => !walked.has(p.id)) };
}
