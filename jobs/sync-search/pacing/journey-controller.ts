/**
 * Journeys walked at once by one run, re-sized as the run learns (rules: size-journeys.ts, slow-start.ts,
 * end-game.ts next to this file). Inputs: the account's search limit (the shared governor's learned RateLimit-*
 * figures), the run's page latency (p90 of its last 64 search requests), the write time per page (p10: the CRM's
 * service time; p90 above it and above the page latency means writes queue), the destination's ceiling
 * (records per second: the opened sink's learned figure, read again at every re-size), and how many runs share the
 * account's allowance: each run beats through its source client (`heartbeat`) and sizes for limit / active runs.
 * Journeys grow gradually ("slow start", `growJourneys`): from 4 (or, to a destination with a known ceiling, from
 * what that ceiling needs: `firstJourneyCap`), doubling per step of at least a second while the step's writes kept
 * up (their p90; by a quarter once the CRM's pace has bound), so a run does not put the source's whole figure in
 * flight before the CRM's pace is known (a destination whose window lets its requests go in a burst shows its pace
 * only after it).
 * Lives in jobs/ because it joins the source (latency, limit) with the CRM side (write times).
 */
import { randomUUID } from 'node:crypto';
import type { AppConfig } from '../../../src/config/index.js';
import type { SourceClient } from '../../../src/source/index.js';
import { MovingPercentile } from '../../../src/source/search-timings.js';
import type { Logger } from '../../../src/shared/logger.js';
import { endGameJourneys } from './end-game.js';
import { DEFAULT_LATENCY_MS, searchRate } from './plan-journeys.js';
import { sizeJourneys } from './size-journeys.js';
import { firstJourneyCap, growJourneys } from './slow-start.js';

const HEARTBEAT_TTL_MS = 10_000;
const HEARTBEAT_EVERY_MS = 3_000;
const RESIZE_EVERY_MS = 200;
/**
 * Span over which the pace of a queueing stage is measured: two of a destination's 10-second windows, so a governor
 * that lets a window's requests go in a burst and then waits is not read as a slow CRM (which would shrink the run
 * below the CRM's pace).
 * No pace is trusted before half of it was observed.
 */
const PACE_SPAN_MS = 20_000;
/** Shortest growth step: several writes per journey at the usual page latencies, and writes to judge it by. */
const GROWTH_STEP_MS = 1_000;
const GROWTH_STEP_WRITES = 4;

export interface ControllerDeps {
  source: SourceClient;
  config: AppConfig;
  pageSize: number;
  /** The plan's first figure and the bound. */
  initial: number;
  max: number;
  /** The destination's ceiling in records per second, or its live reading (the sink's learned limit); null: none. */
  crmRecordsPerSecond?: number | null | (() => number | null);
  /** The clock (ms, monotonic); tests step it. Default `performance.now`. */
  now?: () => number;
  /** Each change of the figure is logged at debug, with what it was sized from. */
  logger?: Logger;
}

/** What the controller used for its last figure (for logs, tests and the benchmark). */
export interface Sizing {
  journeys: number;
  /** What the sizing rule asked for (`sizeJourneys`), and the slow start's cap on it (`growJourneys`). */
  demand: number;
  cap: number;
  activeRuns: number;
  limit: number;
  windowMs: number;
  fetchP90Ms: number;
  writeP10Ms: number;
  writesQueue: boolean;
  sourceWaits: boolean;
  queuedPagesPerSecond: number | null;
}

export class JourneyController {
  private readonly member = randomUUID();
  private readonly writes = new MovingPercentile(64);
  private readonly written: { at: number; pages: number }[] = [];
  private readonly fetched: { at: number; pages: number }[] = [];
  private activeRuns = 1;
  private readonly now: () => number;
  private startedAt: number;
  /** Slow start: the cap on journeys, and the current step's writes (time per page). */
  private cap: number;
  private step: { at: number; writeMs: MovingPercentile };
  /**
   * The lowest page latency (p90) and quick-write time (p10) seen in the run: what "keeping up" is judged against,
   * since both rise once journeys queue (for the CRM's window, or for the worker's CPU).
   */
  private unloaded: { fetchMs: number; quickWriteMs: number } = {
    fetchMs: Number.POSITIVE_INFINITY,
    quickWriteMs: Number.POSITIVE_INFINITY,
  };
  /** The CRM's pace bound the run once: growth is gradual from then on. */
  private boundBefore = false;
  private rate: { limit: number; windowMs: number } | null = null;
  private timer: NodeJS.Timeout | undefined;
  private resizedAt = Number.NEGATIVE_INFINITY;
  private current: number;
  private last: Sizing | null = null;
  private endGameLogged = false;
  /** Highest figure the walk was allowed during the run. */
  peak: number;

  constructor(private readonly deps: ControllerDeps) {
    this.now = deps.now ?? (() => performance.now());
    this.startedAt = this.now();
    this.step = { at: this.startedAt, writeMs: new MovingPercentile(256) };
    const fetchMs = deps.source.searchTimings().countLatencyP50Ms ?? DEFAULT_LATENCY_MS;
    this.cap = firstJourneyCap({ ceilingPagesPerSecond: this.ceilingPagesPerSecond(), fetchMs, demand: deps.initial });
    this.current = Math.max(1, Math.min(deps.max, deps.initial, this.cap));
    this.peak = this.current;
  }

  /** The destination's ceiling in pages per second now (null: none); a CRM's learned limit can change mid-run. */
  private ceilingPagesPerSecond(): number | null {
    const c = this.deps.crmRecordsPerSecond;
    const recordsPerSecond = typeof c === 'function' ? c() : c;
    return recordsPerSecond ? recordsPerSecond / this.deps.pageSize : null;
  }

  /** Joins the account's registry of walking runs and keeps beating until `stop`. */
  async start(): Promise<void> {
    this.startedAt = this.now();
    this.step = { at: this.startedAt, writeMs: new MovingPercentile(256) };
    await this.refresh();
    // The plan sized for the whole allowance: start with this run's share of it.
    this.current = Math.max(1, Math.ceil(this.current / this.activeRuns));
    this.timer = setInterval(() => void this.refresh().catch(() => undefined), HEARTBEAT_EVERY_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.deps.source.leave(this.member).catch(() => undefined);
  }

  /** Beats now and re-reads the limit (also every 3 s while walking); the next `target()` re-sizes. */
  async refresh(): Promise<void> {
    this.resizedAt = Number.NEGATIVE_INFINITY;
    this.activeRuns = Math.max(1, await this.deps.source.heartbeat(this.member, HEARTBEAT_TTL_MS));
    this.rate = await searchRate(this.deps.source, this.deps.config);
  }

  /** One page arrived (any journey of the run). */
  pageFetched(): void {
    this.fetched.push({ at: this.now(), pages: 1 });
    this.trim(this.fetched); // the log holds the last PACE_SPAN_MS only
  }

  /** One write of `records` took `ms` (any journey of the run). */
  writeTimed(records: number, ms: number): void {
    if (records <= 0) return;
    const pages = records / this.deps.pageSize;
    this.writes.add(ms / pages);
    this.step.writeMs.add(ms / pages);
    this.written.push({ at: this.now(), pages });
    this.trim(this.written);
  }

  private trim(log: { at: number; pages: number }[]): void {
    const since = this.now() - PACE_SPAN_MS;
    while (log.length > 0 && (log[0] as { at: number }).at < since) log.shift();
  }

  private pace(log: { at: number; pages: number }[]): number | null {
    this.trim(log);
    const observed = Math.min(PACE_SPAN_MS, this.now() - this.startedAt);
    if (observed < PACE_SPAN_MS / 2) return null;
    return log.reduce((n, e) => n + e.pages, 0) / (observed / 1000);
  }

  /** Journeys the walk may have in flight now (re-sized at most every 200 ms). */
  target(): number {
    const now = this.now();
    if (now - this.resizedAt < RESIZE_EVERY_MS) return this.current;
    this.resizedAt = now;
    const timing = this.deps.source.searchTimings();
    if (!this.rate || timing.samples < 4) return this.current;
    const fetchP90Ms = timing.latencyP90Ms ?? DEFAULT_LATENCY_MS;
    const writeP10Ms = this.writes.at(0.1) ?? 0;
    const writeP50Ms = this.writes.at(0.5) ?? 0;
    // Writes queue when they, not the pages, set a journey's pace and most of them wait far beyond the quick ones
    // (the median, not a tail: one slow write, e.g. a pause of the process, is not a CRM that cannot keep up).
    const writesQueue = this.writes.count >= 8 && writeP50Ms > fetchP90Ms && writeP50Ms > 4 * writeP10Ms;
    // The governor makes most requests sleep (its Redis round trip alone is not waiting).
    const sourceWaits = (timing.waitP50Ms ?? 0) > Math.max(10, 0.1 * fetchP90Ms);
    const ceilingPagesPerSecond = this.ceilingPagesPerSecond();
    // A CRM whose ceiling is known is sized for from it, not from its measured pace: behind a window that lets requests
    // go in bursts, the pace it passed is the pages the journeys brought, and shrinking to it starves the CRM.
    const crmPace = writesQueue && ceilingPagesPerSecond === null ? this.pace(this.written) : null;
    const paces = [crmPace, sourceWaits ? this.pace(this.fetched) : null].filter(
      (p): p is number => p !== null && p > 0,
    );
    const queuedPagesPerSecond = paces.length > 0 ? Math.min(...paces) : null;
    const demand = sizeJourneys({
      limit: this.rate.limit,
      windowMs: this.rate.windowMs,
      activeRuns: this.activeRuns,
      fetchMs: fetchP90Ms,
      writeMs: writeP10Ms,
      queuedPagesPerSecond,
      max: this.deps.max,
      ceilingPagesPerSecond,
    });
    this.unloaded.fetchMs = Math.min(this.unloaded.fetchMs, fetchP90Ms);
    if (this.writes.count >= 8) this.unloaded.quickWriteMs = Math.min(this.unloaded.quickWriteMs, writeP10Ms);
    this.grow(now, {
      demand,
      crmBinds: writesQueue,
      fetchMs: this.unloaded.fetchMs,
      quickWriteMs: Math.min(this.unloaded.quickWriteMs, writeP10Ms),
    });
    if (writesQueue && (queuedPagesPerSecond !== null || ceilingPagesPerSecond !== null)) this.boundBefore = true;
    const journeys = Math.min(demand, this.cap);
    if (journeys !== this.current) {
      this.deps.logger?.debug(
        {
          journeys,
          demand,
          cap: this.cap,
          fetchP90Ms,
          writeP10Ms,
          writeP50Ms,
          writesQueue,
          sourceWaits,
          queuedPagesPerSecond,
          activeRuns: this.activeRuns,
          atMs: Math.round(now - this.startedAt),
        },
        'journeys resized',
      );
    }
    this.current = journeys;
    this.peak = Math.max(this.peak, journeys);
    this.last = {
      journeys,
      demand,
      cap: this.cap,
      activeRuns: this.activeRuns,
      ...this.rate,
      fetchP90Ms,
      writeP10Ms,
      writesQueue,
      sourceWaits,
      queuedPagesPerSecond,
    };
    return journeys;
  }

  /**
   * Journeys for the run's last window (`endGameJourneys`): every partition left, once all the searches the run still
   * needs fit in one window of its share; 0 before.
   */
  endGame(left: { pages: number; partitions: number; recordsPerJourney: number }): number {
    if (!this.rate) return 0;
    // The walk bounds it by `source.parallelism`, as it bounds the sized figure.
    const journeys = endGameJourneys({
      remainingPages: left.pages,
      partitionsLeft: left.partitions,
      ...this.rate,
      activeRuns: this.activeRuns,
      ceilingPagesPerSecond: this.ceilingPagesPerSecond(),
      recordsPerJourney: left.recordsPerJourney,
    });
    if (journeys > 0 && !this.endGameLogged) {
      this.endGameLogged = true;
      this.deps.logger?.debug(
        {
          journeys,
          remainingPages: left.pages,
          partitions: left.partitions,
          atMs: Math.round(this.now() - this.startedAt),
        },
        'last window: every partition left walks at once',
      );
    }
    return journeys;
  }

  /** Ends a growth step once it lasted a second and saw a few writes (the CRM binding ends it at once: shrink). */
  private grow(now: number, facts: { demand: number; crmBinds: boolean; fetchMs: number; quickWriteMs: number }): void {
    const stepDone = now - this.step.at >= GROWTH_STEP_MS && this.step.writeMs.count >= GROWTH_STEP_WRITES;
    if (!stepDone && !facts.crmBinds) return;
    // p90: a CRM whose window let the step's first writes go at once and made the rest wait did not keep up
    this.cap = growJourneys({
      cap: this.cap,
      max: this.deps.max,
      ...facts,
      stepWriteMs: this.step.writeMs.at(0.9),
      boundBefore: this.boundBefore,
    });
    if (stepDone) this.step = { at: now, writeMs: new MovingPercentile(256) };
  }

  sizing(): Sizing | null {
    return this.last;
  }
}
