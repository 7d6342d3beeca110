/**
 * How many journeys a run walks at once, from the numbers the worker learns (Little's law): pages in flight =
 * page rate x time per page. The page rate is the account's search limit per window, split between the runs
 * walking on the account; the time per page is the slower of the page latency and the write time per page (a
 * journey fetches page n+1 while page n is written). A stage that makes requests queue (the API governor, or the
 * CRM's) caps the rate at what it actually passes, and the destination's configured rate caps it from the start.
 * A window's grants go out in the part of it the governor can grant in (`resetRoundingMs`). Pure, so the rule is
 * tested without a clock.
 */
import { resetRoundingMs } from './rate-limit-headers.js';

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
  const positive = (n: number | null | undefined): number => (n !== null && n !== undefined && n > 0 ? n : Number.POSITIVE_INFINITY);
  const max = Math.max(1, Math.floor(input.max));
  if (!(input.limit > 0) || !(input.windowMs > 0)) return Math.min(max, 1);
  const share = input.limit / Math.max(1, input.activeRuns) / ((input.windowMs - resetRoundingMs(input.windowMs)) / 1000);
  const queued = input.queuedPagesPerSecond;
  // A ceiling is sized for at twice its rate: the destination binds there, and must never wait for pages (journeys
  // switching partitions, partial writes held for packing); the extra journeys wait in the CRM's governor.
  const rate = Math.min(share, positive(queued), CEILING_SLACK * positive(input.ceilingPagesPerSecond));
  const journeys = inFlight(rate, Math.max(input.fetchMs, input.writeMs, 1), input.headroom ?? DEFAULT_HEADROOM);
  return Math.max(1, Math.min(max, journeys));
}

/** Little's law: pages in flight for a page rate and a time per page, with headroom. */
function inFlight(pagesPerSecond: number, msPerPage: number, headroom: number): number {
  return Math.ceil(pagesPerSecond * (msPerPage / 1000) * headroom);
}

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
 * turn a window of a fast package (10,000 searches/min: 1,000,000 records) into memory. Bulk API 2.0 batches of
 * 10,000 records: 9 journeys; Salesforce collections (800): 124; HubSpot (100 + a page): 500.
 */
export const END_GAME_MAX_UNWRITTEN = 100_000;

/**
 * The run's last window: once every search the run still needs fits in one window of its share of the allowance,
 * every partition left walks at once (the window lets its grants go at once anyway, while Little's law sizes for its
 * sustained rate): a run that fits in one window uses it at once (20,000 companies at 500 / 60 s: 17.7 -> 12.5 s),
 * and the pages that spill into the next window are spread over every partition left.
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
  return Math.max(1, Math.min(input.partitionsLeft, Math.floor(END_GAME_MAX_UNWRITTEN / Math.max(1, input.recordsPerJourney))));
}

/** A moving percentile over the last `size` samples (a ring; sorting 64 numbers per read is cheap). */
export class MovingPercentile {
  private readonly ring: number[] = [];
  private next = 0;

  constructor(private readonly size = 64) {}

  add(value: number): void {
    if (this.ring.length < this.size) this.ring.push(value);
    else this.ring[this.next] = value;
    this.next = (this.next + 1) % this.size;
  }

  get count(): number {
    return this.ring.length;
  }

  /** The p-th percentile (0..1) of the samples, null before the first. */
  at(p: number): number | null {
    if (this.ring.length === 0) return null;
    const sorted = [...this.ring].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? null;
  }
}

/** What the search requests of one client took: HTTP latency and the governor's wait, as moving windows. */
export class SearchTimings {
  readonly latency = new MovingPercentile(64);
  readonly wait = new MovingPercentile(64);
  /** HTTP time of count requests: the plan's stand-in for page latency before any page was fetched. */
  readonly countLatency = new MovingPercentile(16);

  record(waitMs: number, latencyMs: number): void {
    this.wait.add(waitMs);
    this.latency.add(latencyMs);
  }

  recordCount(latencyMs: number): void {
    this.countLatency.add(latencyMs);
  }

  snapshot(): TimingSnapshot {
    return { samples: this.latency.count, latencyP90Ms: this.latency.at(0.9), waitP50Ms: this.wait.at(0.5), countLatencyP50Ms: this.countLatency.at(0.5) };
  }
}

export interface TimingSnapshot {
  samples: number;
  /** p90 of the last 64 search requests' HTTP time; null before the first. */
  latencyP90Ms: number | null;
  /** Median governor wait of the last 64 search requests: above 0, the account's allowance is the limit. */
  waitP50Ms: number | null;
  /** Median HTTP time of the last 16 count requests (no token fetch, no governor wait); null before the first. */
  countLatencyP50Ms: number | null;
}

/** Journeys a run starts with before any write was timed ("slow start"): the CRM's pace is not known yet. */
export const SLOW_START_JOURNEYS = 4;

/**
 * The slow start's first cap. A destination whose ceiling is known (a HubSpot portal's requests per 10 s) takes at
 * least the pages that ceiling needs from the start: as many journeys as keep it busy at the page latency (the
 * count's, before any page), never more than the sizing asks. Growth goes on from there. Without a ceiling, 4.
 * (2,000 searches/min at 800 ms into HubSpot: 4, 8, 16, 32 journeys over the first ~3 s left its first window, and
 * every later window, which a rolling limit repeats, short of pages.)
 */
export function firstJourneyCap(input: { ceilingPagesPerSecond: number | null; fetchMs: number; demand: number }): number {
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
   * requests go at once looks free again at each new window; doubling there would swing between 7 and 60).
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
