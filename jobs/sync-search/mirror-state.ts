/**
 * What `plan <search>` shows of the search's mirror (docs/runs.md, Mirror) without walking: its members and pending
 * leavers in the CRM instance the destination points at, the members not in its list yet (the next complete run
 * adds them) and the last complete run's entered and left as the churn to expect. The exact forecast of a run is
 * `run --dry-run`, which walks.
 */
import type { SavedSearch } from '../../src/config/index.js';
import type { RunSummary } from '../../src/runs/run-summary.js';
import { listRuns } from '../../src/runs/run-history.js';
import { membershipOf } from './leavers.js';
import { openDestination } from './open-destination.js';
import { resolveSearch } from './resolve-search.js';
import type { SyncDeps } from './run-request.js';

/** The warnings that leave confirmed leavers pending: held by the guard, or refused by the CRM or the list. */
const PENDING_CODES = ['leave_guard', 'leave_refused', 'list_refused'] as const;
type PendingCode = (typeof PENDING_CODES)[number];

export interface MirrorState {
  /** The CRM instance the membership belongs to (the sink's identity). */
  instance: string;
  members: number;
  /** Confirmed leavers not acted on yet; `pendingBecause`: the last complete run's warning that left them so. */
  leaversPending: number;
  pendingBecause: PendingCode | null;
  /** With `list:`: its name, and the members not in it yet (added after the next complete run). */
  list: { name: string; unlisted: number } | null;
  onLeave: SavedSearch['onLeave'];
  /** The last complete (not dry, not capped) run's figures: the churn to expect; null before the first. */
  lastComplete: {
    runId: string;
    finishedAt: string;
    entered: number;
    left: number;
    leaveActions: number;
    listAdded: number | null;
    listRemoved: number | null;
  } | null;
}

/** A run that settled the membership: completed, not capped at `maxRecords`, not a dry run. */
const settled = (r: RunSummary): boolean =>
  r.status === 'completed' && r.limitedBy === undefined && !r.dryRun && r.entered !== undefined;

function figures(run: RunSummary | undefined): MirrorState['lastComplete'] {
  if (run === undefined) return null;
  return {
    runId: run.runId,
    finishedAt: run.finishedAt,
    entered: run.entered ?? 0,
    left: run.left ?? 0,
    leaveActions: run.leaveActions ?? 0,
    listAdded: run.listAdded ?? null,
    listRemoved: run.listRemoved ?? null,
  };
}

function pendingBecause(run: RunSummary | undefined, pending: number): PendingCode | null {
  if (pending === 0) return null;
  const codes = new Set(run?.warnings?.groups?.map((g) => g.code) ?? []);
  return PENDING_CODES.find((c) => codes.has(c)) ?? null;
}

/** Reads the mirror's state; the CRM is asked only who it is (its identity call, under the sink's deadline). */
export async function mirrorState(
  deps: Pick<SyncDeps, 'config' | 'redis' | 'prefix' | 'logger'>,
  name: string,
  signal?: AbortSignal,
): Promise<MirrorState> {
  const { search, destination } = resolveSearch(deps.config, name);
  const crm = await openDestination(deps.config, search, destination, {
    redis: deps.redis,
    prefix: deps.prefix,
    logger: deps.logger,
  });
  try {
    const { store, instance } = await membershipOf({
      redis: deps.redis,
      prefix: deps.prefix,
      search,
      crm,
      ...(signal ? { signal } : {}),
    });
    const [counts, runs] = await Promise.all([
      store.counts(search.list !== undefined),
      listRuns(deps.redis, name, { prefix: deps.prefix, limit: 50 }),
    ]);
    const last = runs.find(settled);
    return {
      instance,
      members: counts.members,
      leaversPending: counts.pending,
      pendingBecause: pendingBecause(last, counts.pending),
      list: search.list === undefined ? null : { name: search.list.name, unlisted: counts.unlisted },
      onLeave: search.onLeave ?? 'nothing',
      lastComplete: figures(last),
    };
  } finally {
    await crm.sink.close();
  }
}
