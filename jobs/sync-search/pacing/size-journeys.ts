/**
 * How many journeys a run walks at once, from the numbers the worker learns (Little's law): pages in flight =
 * page rate x time per page. The page rate is the account's search limit per window, split between the runs
 * walking on the account; the time per page is the slower of the page latency and the write time per page (a
 * journey fetches page n+1 while page n is written). A stage that makes requests queue (the API governor, or the
 * CRM's) caps the rate at what it actually passes, and the destination's known ceiling caps it from the start.
 * A window's grants go out in the part of it the governor can grant in (`resetRoundingMs`). Pure, so the rule is
 * tested without a clock.
 */
import { resetRoundingMs } from '../../../src/source/rate-limit-headers.js';

export interface SizingInput {
  /** Search requests per window (RateLimit-* headers, else the fallback). */
  limit: number;
  windowMs: number;
  /** Runs walking on the account now (this one included). */
  activeRuns: number;
  /** Page latency (a high percentile of the HTTP time, governor wait excluded). */
  fetchMs: number;
  /** Write service time per page (a low percentile: time the CRM takes, not time spent queueing for it); 0 dry. */
  writeMs: number;
  /**
   * Pages per second a queueing stage actually passed over the last stretch (the CRM when writes queue); null when
   * nothing queues. Sizing for it keeps fetched-but-unwritten pages from piling up.
   */
  queuedPagesPerSecond?: number | null;
  /**
   * Pages per second the destination can take at most (its configured request rate x records per request); null
   * when it sets no short-window limit. Known before any write, so the first CRM window (whose requests a governor
   * lets go at once) does not look like room for more journeys than the CRM will ever take.
   */
  ceilingPagesPerSecond?: number | null;
  /** Upper bound (source.parallelism). */
  max: number;
  /** Slack over the exact figure: percentiles move and a journey's first page has no overlap. Default 1.25. */
  headroom?: number;
}

export const DEFAULT_HEADROOM = 1.25;
const CEILING_SLACK = 2;

/** Journeys to walk at once: ceil(rate x time per page x headroom), between 1 and `max`. */
export function sizeJourneys(input: SizingInput): number {
  const positive = (n: number | null | undefined): number =>
    n !== null && n !== undefined && n > 0 ? n : Number.POSITIVE_INFINITY;
  const max = Math.max(1, Math.floor(input.max));
  if (!(input.limit > 0) || !(input.windowMs > 0)) return Math.min(max, 1);
  const share =
    input.limit / Math.max(1, input.activeRuns) / ((input.windowMs - resetRoundingMs(input.windowMs)) / 1000);
  const queued = input.queuedPagesPerSecond;
  // A ceiling is sized for at twice its rate: the destination binds there, and must never wait for pages (journeys
  // switching partitions, partial writes held for packing); the extra journeys wait in the CRM's governor.
  const rate = Math.min(share, positive(queued), CEILING_SLACK * positive(input.ceilingPagesPerSecond));
  const journeys = inFlight(rate, Math.max(input.fetchMs, input.writeMs, 1), input.headroom ?? DEFAULT_HEADROOM);
  return Math.max(1, Math.min(max, journeys));
}

/** Little's law: pages in flight for a page rate and a time per page, with headroom. */
export function inFlight(pagesPerSecond: number, msPerPage: number, headroom: number): number {
  return Math.ceil(pagesPerSecond * (msPerPage / 1000) * headroom);
}
