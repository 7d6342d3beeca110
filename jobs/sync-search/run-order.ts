/**
 * `after:` between searches: a queued run whose `after` searches still have a run queued or active goes back to the
 * delayed set and looks again, waiting longer each time (every look is a start of the job, and starts are bounded),
 * until they are done or it has waited `AFTER_MAX_WAIT_MS` since it was queued; then it runs anyway, logged.
 */
import type { SavedSearch } from '../../src/config/index.js';

/** Which of these searches have a run queued, active or delayed but due within `dueWithinMs` (src/queue). */
export type RunsInFlight = (searches: readonly string[], dueWithinMs: number) => Promise<string[]>;

const FIRST_LOOK_MS = 5_000;
const LONGEST_LOOK_MS = 5 * 60_000;
/** A run held longer than this by a search it follows runs anyway: being late beats never running. */
const AFTER_MAX_WAIT_MS = 2 * 60 * 60_000;

export interface AfterWait {
  /** The searches it waits for. */
  waitFor: string[];
  /** When to look again (epoch ms). */
  lookAgainAt: number;
  /** It has waited `AFTER_MAX_WAIT_MS`: it runs now although they are not done. */
  late: boolean;
}

/**
 * The wait a run of `search` owes its `after` searches now, or null when it may start. `looks` is how many times this
 * job started before (BullMQ's attemptsStarted - 1): each look waits twice as long as the one before.
 */
export async function afterWait(
  search: SavedSearch | undefined,
  queuedAt: number,
  looks: number,
  runsInFlight: RunsInFlight | undefined,
): Promise<AfterWait | null> {
  if (!search?.after || !runsInFlight) return null;
  const now = Date.now();
  const step = Math.min(LONGEST_LOOK_MS, FIRST_LOOK_MS * 2 ** Math.max(0, looks));
  const waitFor = await runsInFlight(search.after, step);
  return waitFor.length === 0 ? null : { waitFor, lookAgainAt: now + step, late: now - queuedAt >= AFTER_MAX_WAIT_MS };
}
