/**
 * How fast a run's journeys grow (TCP's slow start, for journeys): the cap starts small, since the CRM's pace is
 * not known before its first writes, and grows per step while the step's writes keep up.
 */
import { DEFAULT_HEADROOM, inFlight } from './size-journeys.js';

/** Journeys a run starts with before any write was timed ("slow start"): the CRM's pace is not known yet. */
export const SLOW_START_JOURNEYS = 4;

/**
 * The slow start's first cap. A destination whose ceiling is known (its requests per short window) takes at least
 * the pages that ceiling needs from the start: as many journeys as keep it busy at the page latency (the count's,
 * before any page), never more than the sizing asks. Growth goes on from there. Without a ceiling, 4. Doubling
 * from 4 would leave the destination's first window, and every later one a rolling limit repeats, short of pages.
 */
export function firstJourneyCap(input: {
  ceilingPagesPerSecond: number | null;
  fetchMs: number;
  demand: number;
}): number {
  const ceiling = input.ceilingPagesPerSecond;
  if (ceiling === null || !(ceiling > 0) || !(input.fetchMs > 0)) return SLOW_START_JOURNEYS;
  return Math.max(SLOW_START_JOURNEYS, Math.min(inFlight(ceiling, input.fetchMs, DEFAULT_HEADROOM), input.demand));
}

export interface GrowthInput {
  /** The growth cap now (journeys never exceed it). */
  cap: number;
  /** What the sizing rule asks for (`sizeJourneys`): the source's figure, or the CRM's pace once that binds. */
  demand: number;
  max: number;
  /** The CRM binds: writes queue (their median far above the quick ones) and its pace is what `demand` sized for. */
  crmBinds: boolean;
  /** Write time per page over the last step, a high percentile (null: no write in it). */
  stepWriteMs: number | null;
  /** Page latency (p90) and the quick writes' time per page (p10), as measured before anything queued. */
  fetchMs: number;
  quickWriteMs: number;
  /**
   * The CRM bound earlier in the run: grow by a quarter per step instead of doubling (a CRM that lets a window's
   * requests go at once looks free again at each new window; doubling there would swing far around its pace).
   */
  boundBefore?: boolean;
}

/**
 * The growth cap after one step (TCP's slow start, for journeys): doubles while the step's writes kept up (within
 * the page latency or twice the quick writes), holds when they waited, and falls to `demand` when
 * the CRM binds, so a run never has more journeys in flight than the CRM's pace needs; once it has bound, by a
 * quarter per step (TCP's congestion avoidance). Pure, tested without a clock.
 */
export function growJourneys(input: GrowthInput): number {
  const max = Math.max(1, Math.floor(input.max));
  const cap = Math.max(1, Math.min(max, input.cap));
  if (input.crmBinds) return Math.max(1, Math.min(cap, input.demand));
  if (input.stepWriteMs === null || input.demand <= cap) return cap;
  const keptUp = input.stepWriteMs <= Math.max(input.fetchMs, 2 * input.quickWriteMs);
  if (!keptUp) return cap;
  return Math.min(max, input.boundBefore === true ? cap + Math.max(1, Math.floor(cap / 4)) : cap * 2);
}
