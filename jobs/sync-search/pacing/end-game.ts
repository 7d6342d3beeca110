/**
 * The run's last window ("end game"): when every partition left walks at once instead of the sized figure.
 * Pure, tested without a clock.
 */
import { resetRoundingMs } from '../../../src/source/rate-limit-headers.js';

/** What is left of a run when the walk asks whether its last window has come (`endGameJourneys`). */
export interface EndGameInput {
  /** Search requests the run still needs: its records left in whole pages, plus one partial page per partition left. */
  remainingPages: number;
  /** Partitions not walked to their end (walking or waiting). */
  partitionsLeft: number;
  limit: number;
  windowMs: number;
  activeRuns: number;
  ceilingPagesPerSecond?: number | null;
  /** Records one journey may hold unwritten: its write batch and the page fetched ahead. */
  recordsPerJourney: number;
}

/**
 * Records the end game's journeys may hold unwritten between them: more journeys than the sizing asked must not
 * turn a whole window of a fast package into memory. The larger a destination's write batch, the fewer journeys.
 */
export const END_GAME_MAX_UNWRITTEN = 100_000;

/**
 * The run's last window: once every search the run still needs fits in one window of its share of the allowance,
 * every partition left walks at once. The window lets its grants go at once anyway, while Little's law sizes for its
 * sustained rate: a run that fits in one window then uses it at once, and the pages that spill into the next
 * window are spread over every partition left.
 * Not when the destination's ceiling binds before the source's allowance: the extra journeys would only wait for
 * the CRM. Never more journeys than hold `END_GAME_MAX_UNWRITTEN` records between them. 0 when the end game has not
 * come (the sizing rule alone then applies).
 */
export function endGameJourneys(input: EndGameInput): number {
  if (!(input.limit > 0) || !(input.windowMs > 0) || input.partitionsLeft <= 1) return 0;
  const share = input.limit / Math.max(1, input.activeRuns);
  if (input.remainingPages > share) return 0;
  const sourcePagesPerSecond = share / ((input.windowMs - resetRoundingMs(input.windowMs)) / 1000);
  const ceiling = input.ceilingPagesPerSecond;
  if (ceiling !== null && ceiling !== undefined && ceiling > 0 && ceiling < sourcePagesPerSecond) return 0;
  return Math.max(
    1,
    Math.min(input.partitionsLeft, Math.floor(END_GAME_MAX_UNWRITTEN / Math.max(1, input.recordsPerJourney))),
  );
}
