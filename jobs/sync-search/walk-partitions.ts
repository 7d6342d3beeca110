import { BudgetStopError, CheckpointMismatchError, PaginationDepthError, RecordQuota, TokensExhaustedError } from '../../src/source/index.js';
import type { Filter, JourneyPage, SourceClient } from '../../src/source/index.js';
import type { CrmWriter, FieldMapping } from '../../src/crm/index.js';
import type { RunPlan } from './plan-run.js';
import type { RunLedger } from './run-ledger.js';
import { prefetch } from './prefetch.js';
import { WritePacker } from './write-packer.js';

export interface WalkContext {
  source: SourceClient;
  plan: RunPlan;
  runId: string;
  view: string[];
  idField: string;
  mode: 'cursor' | 'offset';
  /** The run's state: the partitions to walk, and where each batch the CRM answered is committed. */
  ledger: RunLedger;
  /** Aborts the walk (shutdown, lost run lock): each journey finishes the batch in flight, then stops. */
  signal: AbortSignal;
  /** The CRM end: maps, skips unchanged and upserts records, one outcome per record in input order. */
  crm: { writer: CrmWriter; mapping: FieldMapping };
  dryRun: boolean;
  /** Records per CRM write (pages are gathered up to this; smaller batches are packed together); the checkpoint moves once per write. */
  writeBatch: number;
  /** Re-sizes the journeys in flight as the run learns (jobs/sync-search/concurrency.ts); else `plan.parallelism`. */
  concurrency?: WalkConcurrency;
  /** A plan still splitting: its partitions are added to the ledger as they settle; else every one is there. */
  planning?: PartitionFeed;
}

/** Partitions that arrive while the walk runs (a streamed plan, jobs/sync-search/plan-run.ts `startPlan`). */
export interface PartitionFeed {
  /** Settles when no partition is left to add; rejects with the plan's error (the run fails with it). */
  complete: Promise<unknown>;
  /** Called after partitions were added to the ledger. */
  onAdded(listener: () => void): void;
}

/** What the walk asks of its concurrency control. */
export interface WalkConcurrency {
  target(): number;
  /** Journeys for the run's last window, from what is left of the run (0: not there yet). */
  endGame?(left: { pages: number; partitions: number; recordsPerJourney: number }): number;
  pageFetched(): void;
  recordWrite(records: number, ms: number): void;
}

/** Figures of one walk: the bound on memory is `peakUnwritten` (records fetched and not yet written). */
export interface WalkStats {
  /** Most journeys walking at once (those whose partition's last batch waits for packing excluded). */
  peakJourneys: number;
  peakUnwritten: number;
  /** CRM writes that carried the partial batches of several journeys (jobs/sync-search/write-packer.ts). */
  packedWrites: number;
}

/** How often the walk looks again at its target while every journey is busy. */
const RESIZE_TICK_MS = 250;

/** Which stop wins when several journeys stop at once: an exhausted budget first (the run is delayed), then caps. */
function rank(err: unknown): number {
  if (err instanceof TokensExhaustedError) return 3;
  if (err instanceof BudgetStopError) return 2;
  return 1;
}

/**
 * Walks every partition not done yet, in their order (the plan puts the largest first), with as many journeys at
 * once as `ctx.concurrency` says (re-asked whenever a journey ends and every 250 ms; fewer journeys take effect as
 * running ones finish their partition), or every partition left once the run's last window has come (its `endGame`). In each journey page n+1 is fetched while page n is written, and the
 * journey's checkpoint moves only after the CRM accepted page n: each journey holds at most one write batch and
 * one page fetched but unwritten, so a slow CRM slows the walk instead of filling memory. The first journey to
 * fail stops the others (after their batch in flight) and its error is thrown; the checkpoint keeps everything
 * accepted so far.
 */
export async function walkPartitions(ctx: WalkContext): Promise<WalkStats> {
  const { ledger } = ctx;
  // Indices of partitions to walk, largest first (by planned count; partitions without one keep their order at the end).
  const queue: number[] = [];
  const sizeOf = (i: number): number => ledger.partition(i)?.count ?? 0;
  const enqueue = (i: number): void => {
    const at = queue.findIndex((j) => sizeOf(j) < sizeOf(i));
    if (at < 0) queue.push(i);
    else queue.splice(at, 0, i);
  };
  // Partitions added to the ledger since last looked (a streamed plan's, or pieces of a live-index split).
  let known = 0;
  const takeAdded = (): void => {
    for (; known < ledger.size; known++) if (!ledger.partition(known)?.done) enqueue(known);
  };
  takeAdded();
  // maxRecords below the count: one cap shared by the parallel journeys, counting what earlier attempts fetched
  const quota = ctx.plan.quota === null ? undefined : new RecordQuota(ctx.plan.quota, ledger.fetched);
  let failure: unknown;
  const fail = (err: unknown): void => {
    if (ctx.signal.aborted && failure === undefined) return; // shutdown, not a failure
    if (failure === undefined || rank(err) > rank(failure)) failure = err;
  };
  // When one journey stops (cap, exhausted budget, error) the others request no new page, but pages already in
  // flight were admitted and charged: they complete and are written, so nothing paid for is dropped.
  const stopped = (): boolean => failure !== undefined || ctx.signal.aborted;
  const stats: WalkStats = { peakJourneys: 0, peakUnwritten: 0, packedWrites: 0 };
  const gauge = { unwritten: 0, add(n: number): void { this.unwritten += n; stats.peakUnwritten = Math.max(stats.peakUnwritten, this.unwritten); } };
  const bound = ctx.mode === 'offset' ? 1 : Math.max(1, ctx.plan.maxParallelism);
  // A streamed plan: the walk may run out of partitions before the split is done, and then waits for more.
  let planning = ctx.planning !== undefined;
  let wake: () => void = () => undefined;
  ctx.planning?.onAdded(() => wake());
  ctx.planning?.complete.then(() => { planning = false; }, (err: unknown) => { planning = false; fail(err); }).finally(() => wake());

  const running = new Set<Promise<void>>();
  // A journey whose partition's last batch waits in the packer (or is being written) is done walking: another starts in its place.
  const walking = (): number => running.size - packer.finishedJourneys;
  // Records fetched so far (earlier attempts' included): what is left of the run decides when its last window came.
  let fetched = ledger.fetched;
  const left = (): { pages: number; partitions: number; recordsPerJourney: number } => {
    const partitions = queue.length + walking();
    const pages = Math.ceil(Math.max(0, ctx.plan.target - fetched) / ctx.plan.pageSize) + partitions;
    return { pages, partitions, recordsPerJourney: ctx.writeBatch + ctx.plan.pageSize };
  };
  const target = (): number => {
    const sized = ctx.concurrency?.target() ?? ctx.plan.parallelism;
    // Not while the split still adds partitions: what is left is not known yet.
    const last = planning || ctx.mode === 'offset' ? 0 : (ctx.concurrency?.endGame?.(left()) ?? 0);
    return Math.min(bound, Math.max(sized, last));
  };
  const canStart = (): boolean => !stopped() && queue.length > 0 && walking() < target();
  const packer: WritePacker = new WritePacker({
    size: ctx.writeBatch, ledger, stopped,
    write: (records) => ctx.crm.writer.write(records, ctx.crm.mapping, { runVolume: ctx.plan.target, dryRun: ctx.dryRun }),
    joinable: (waiting) => running.size > waiting || canStart(),
    onHold: () => wake(),
    onWrite: (records, ms) => ctx.concurrency?.recordWrite(records, ms),
  });
  const start = (index: number): void => {
    const walk = walkPartition(ctx, index, stopped, queue, quota, gauge, packer, (records) => { fetched += records; }).catch(fail);
    const tracked = walk.finally(() => running.delete(tracked));
    running.add(tracked);
    stats.peakJourneys = Math.max(stats.peakJourneys, walking());
  };
  for (;;) {
    takeAdded();
    while (canStart()) start(queue.shift() as number);
    // A journey ended or the walk stopped: held partial batches may have nobody left to be packed with.
    packer.poke();
    if (running.size === 0 && (!planning || stopped())) break;
    let timer: NodeJS.Timeout | undefined;
    const tick = new Promise<void>((resolve) => { timer = setTimeout(resolve, RESIZE_TICK_MS); });
    const added = new Promise<void>((resolve) => { wake = resolve; });
    await Promise.race([...running, tick, added]);
    clearTimeout(timer);
  }
  packer.close();
  stats.packedWrites = packer.packedWrites;
  if (failure !== undefined) throw failure;
  return stats;
}

/** Several pages of one journey as one write: records and charges add up, the state is the last page's. */
function mergePages(pages: JourneyPage[]): JourneyPage {
  const lastPage = pages[pages.length - 1] as JourneyPage;
  if (pages.length === 1) return lastPage;
  return {
    ...lastPage,
    records: pages.flatMap((p) => p.records),
    returned: pages.reduce((n, p) => n + p.returned, 0),
    duplicates: pages.reduce((n, p) => n + p.duplicates, 0),
    tokensCharged: pages.reduce((n, p) => n + p.tokensCharged, 0),
    creditsCharged: pages.reduce((n, p) => n + p.creditsCharged, 0),
    restarted: pages.some((p) => p.restarted),
    ...(pages.some((p) => p.revealed) ? { revealed: pages.flatMap((p) => p.revealed ?? []), revealSkipped: pages.reduce((n, p) => n + (p.revealSkipped ?? 0), 0) } : {}),
  };
}

/** The pages of `source` until `stop()` says so; checked before each page is requested, never mid-request. */
async function* until<T>(source: AsyncIterable<T>, stop: () => boolean): AsyncGenerator<T> {
  for await (const item of source) {
    yield item;
    if (stop()) return;
  }
}

/** Counts each page as it arrives from the API (before it waits in the prefetch buffer). */
async function* counted(source: AsyncIterable<JourneyPage>, ctx: WalkContext, gauge: { add(n: number): void }, onFetched: (records: number) => void): AsyncGenerator<JourneyPage> {
  for await (const page of source) {
    ctx.concurrency?.pageFetched();
    gauge.add(page.returned);
    onFetched(page.returned);
    yield page;
  }
}

async function walkPartition(
  ctx: WalkContext, index: number, stopped: () => boolean, queue: number[], quota: RecordQuota | undefined, gauge: { add(n: number): void },
  packer: WritePacker, onFetched: (records: number) => void,
): Promise<void> {
  const { signal, ledger } = ctx;
  const partition = ledger.partition(index);
  if (!partition) return;
  const resumeFrom = partition.state ?? undefined;
  const journey = ctx.source.journey(ctx.plan.entity, partition.filter as Filter, {
    runId: ctx.runId,
    view: ctx.view,
    pageSize: ctx.plan.pageSize,
    mode: ctx.mode,
    idField: ctx.idField,
    signal,
    // offset mode is a top-N: its journey needs the N; cursor journeys share the run's record cap, if any
    ...(ctx.mode === 'offset' ? { maxRecords: ctx.plan.target } : {}),
    ...(quota ? { quota } : {}),
    ...(resumeFrom ? { checkpoint: resumeFrom } : {}),
  });
  // Pages are written in batches of about `writeBatch` records (the sink's preferred size): one page for HubSpot,
  // two for Salesforce collections, more for Bulk API 2.0; a smaller batch (the partition's last) is packed with
  // other journeys' (jobs/sync-search/write-packer.ts). The ledger commits the batch once it is written.
  let pending: JourneyPage[] = [];
  let last: JourneyPage | undefined;
  const flush = async (): Promise<void> => {
    if (pending.length === 0) return;
    const batch = mergePages(pending);
    pending = [];
    try {
      await packer.write(index, batch);
    } finally {
      gauge.add(-batch.returned);
    }
    last = batch;
  };
  try {
    let stop: { error: unknown } | undefined;
    try {
      for await (const page of prefetch(counted(until(journey, stopped), ctx, gauge, onFetched), 1)) {
        pending.push(page);
        if (page.done || pending.reduce((n, p) => n + p.returned, 0) >= ctx.writeBatch) await flush();
      }
    } catch (error) {
      stop = { error };
    }
    // Pages fetched before a stop or an error were paid for: write them before the error surfaces. A failing
    // write is not retried here (pending is emptied before writing). If the journey already stopped, its error
    // (e.g. tokens exhausted: a delay) is how the run ends; the unwritten pages are fetched again on resume.
    await flush().catch((writeError: unknown) => {
      if (!stop) throw writeError;
    });
    if (stop) throw stop.error;
    if (!last || last.done) ledger.walked(index);
  } catch (err) {
    if (err instanceof CheckpointMismatchError && resumeFrom) {
      // The saved state belongs to another body (config edited between attempts): walk this partition afresh.
      ledger.restart(index);
      queue.unshift(index);
      return;
    }
    if (err instanceof PaginationDepthError) {
      // The live index grew past the depth: split this partition and walk the pieces (dedup drops repeats).
      const filter = partition.filter as Filter;
      const count = await ctx.source.count(ctx.plan.entity, filter, { signal });
      const pieces = await ctx.source.splitPartition(ctx.plan.entity, { filter, count, headcount: { gte: 0, lte: 0 } }, { signal });
      // The walk takes the pieces from the ledger (without a planned count: after the planned partitions).
      await ledger.replace(index, pieces.map((piece) => piece.filter));
      return;
    }
    throw err;
  }
}
