/**
 * `after:` between searches means "after the last complete run of": a queued run whose `after` searches still have a
 * run queued or active, or have never completed a run, goes back to the delayed set and looks again, waiting longer
 * each time (every look is a start of the job, and starts are bounded), until they are done or it has waited
 * `AFTER_MAX_WAIT_MS` since it was queued; then it runs anyway, logged. Completed means completed for the CRM
 * instance the follower writes to: a destination pointed at another portal/org waits for the followed search again. A
 * followed search that never completed and has no run coming is queued by the follower (the first start of a config:
 * people wait for their companies).
 */
import type { Redis } from 'ioredis';
import type { DestinationConfig, SavedSearch } from '../../src/config/index.js';
import { knownInstance } from '../../src/crm/crm-instance-store.js';
import { listRuns } from '../../src/runs/run-history.js';
import type { RunSummary } from '../../src/runs/run-summary.js';

/** Which of these searches have a run queued, active or delayed but due within `dueWithinMs` (src/queue). */
export type RunsInFlight = (searches: readonly string[], dueWithinMs: number) => Promise<string[]>;

/** What the order of runs needs of the queue: who has a run coming, and a way to queue one. */
export interface RunQueue {
  runsInFlight: RunsInFlight;
  /** Queues a run of `search` unless one is pending (deduplicated). */
  queueRun(search: string): Promise<void>;
}

const FIRST_LOOK_MS = 5_000;
const LONGEST_LOOK_MS = 5 * 60_000;
/** A run held longer than this by a search it follows runs anyway: being late beats never running. */
const AFTER_MAX_WAIT_MS = 2 * 60 * 60_000;

export interface AfterWait {
  /** The searches it waits for. */
  waitFor: string[];
  /** Of those, the ones it queued a run of now (never completed, nothing coming). */
  queued: string[];
  /** When to look again (epoch ms). */
  lookAgainAt: number;
  /** It has waited `AFTER_MAX_WAIT_MS`: it runs now although they are not done. */
  late: boolean;
}

/** A run that wrote the whole search: completed, not a dry run. */
const complete = (r: RunSummary): boolean => r.status === 'completed' && !r.dryRun;

/**
 * The CRM instance the follower writes to, as its destination's settings last led a run to (null: no run opened
 * these settings yet), and since when its run is waiting (epoch ms).
 */
export interface FollowerInstance {
  instance: string | null;
  since: number;
}

/**
 * A complete run counts for the follower's instance when it wrote there; with the instance not known yet, only when
 * it ended since the follower was queued (it ran for the settings as they are now). A run that kept no instance
 * (older) counts as before.
 */
function completeFor(r: RunSummary, follower: FollowerInstance | undefined): boolean {
  if (!complete(r) || !follower || r.crmInstance === undefined) return complete(r);
  return follower.instance === null ? Date.parse(r.finishedAt) >= follower.since : r.crmInstance === follower.instance;
}

/** The follower's `FollowerInstance`, read from Redis: the CRM is not asked. */
export async function followerInstance(
  redis: Redis,
  prefix: string,
  destination: DestinationConfig | undefined,
  since: number,
): Promise<FollowerInstance | undefined> {
  return destination ? { instance: await knownInstance(redis, prefix, destination), since } : undefined;
}

/**
 * Per followed search: its last complete run for the follower's CRM instance (null: none kept) and when its newest
 * run ended.
 */
export async function followedRuns(
  redis: Redis,
  prefix: string,
  after: readonly string[],
  follower?: FollowerInstance,
): Promise<{ search: string; lastComplete: RunSummary | null; lastEnded: number | null }[]> {
  return Promise.all(
    after.map(async (search) => {
      const runs = await listRuns(redis, search, { prefix, limit: 50 });
      const lastComplete = runs.find((r) => completeFor(r, follower)) ?? null;
      return { search, lastComplete, lastEnded: runs[0] ? Date.parse(runs[0].finishedAt) : null };
    }),
  );
}

/**
 * The wait a run of `search` owes its `after` searches now, or null when it may start. `looks` is how many times this
 * job started before (BullMQ's attemptsStarted - 1): each look waits twice as long as the one before.
 */
export async function afterWait(
  search: SavedSearch | undefined,
  queuedAt: number,
  looks: number,
  deps: { redis: Redis; prefix: string; runQueue: RunQueue | undefined; destination?: DestinationConfig },
): Promise<AfterWait | null> {
  const { runQueue } = deps;
  if (!search?.after || !runQueue) return null;
  const now = Date.now();
  const step = Math.min(LONGEST_LOOK_MS, FIRST_LOOK_MS * 2 ** Math.max(0, looks));
  const follower = await followerInstance(deps.redis, deps.prefix, deps.destination, queuedAt);
  const [inFlight, followed] = await Promise.all([
    runQueue.runsInFlight(search.after, step),
    followedRuns(deps.redis, deps.prefix, search.after, follower),
  ]);
  const neverCompleted = followed.filter((f) => f.lastComplete === null && !inFlight.includes(f.search));
  // Queued once: a followed run that ended since this one was queued (and failed) is not tried again by it.
  const queued = neverCompleted.filter((f) => f.lastEnded === null || f.lastEnded < queuedAt).map((f) => f.search);
  for (const name of queued) await runQueue.queueRun(name);
  const waitFor = [...inFlight, ...neverCompleted.map((f) => f.search)];
  if (waitFor.length === 0) return null;
  return { waitFor, queued, lookAgainAt: now + step, late: now - queuedAt >= AFTER_MAX_WAIT_MS };
}
