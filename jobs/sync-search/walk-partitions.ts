import { BudgetStopError, CheckpointMismatchError, PaginationDepthError, TokensExhaustedError } from '../../src/source/index.js';
import type { Filter, JourneyCheckpoint, JourneyPage, SourceClient } from '../../src/source/index.js';
import type { RunCheckpoint } from '../../src/runs/checkpoint-store.js';
import type { RunPlan } from './plan-run.js';
import { prefetch } from './prefetch.js';

export interface WalkContext {
  source: SourceClient;
  plan: RunPlan;
  runId: string;
  view: string[];
  idField: string;
  mode: 'cursor' | 'offset';
  /** Mutated as batches are accepted: per-partition journey state, and `counts.fetched` for the quota. */
  checkpoint: RunCheckpoint<JourneyCheckpoint>;
  /** Aborts the walk (shutdown, lost run lock): each journey finishes the batch in flight, then stops. */
  signal: AbortSignal;
  /** Maps, skips unchanged and upserts one page; resolves once the CRM accepted (or rejected) every record. */
  writePage(page: JourneyPage): Promise<void>;
  /** Persists `checkpoint` (called after every accepted batch). */
  saveCheckpoint(): Promise<void>;
}

/** Which stop wins when several journeys stop at once: an exhausted budget first (the run is delayed), then caps. */
function rank(err: unknown): number {
  if (err instanceof TokensExhaustedError) return 3;
  if (err instanceof BudgetStopError) return 2;
  return 1;
}

/**
 * Walks every partition not done yet, `plan.parallelism` journeys at once. In each journey page n+1 is fetched
 * while page n is written, and the journey's checkpoint moves only after the CRM accepted page n. The first
 * journey to fail stops the others (after their batch in flight) and its error is thrown; the checkpoint keeps
 * everything accepted so far.
 */
export async function walkPartitions(ctx: WalkContext): Promise<void> {
  const queue = ctx.checkpoint.partitions.flatMap((p, i) => (p.done ? [] : [i]));
  let failure: unknown;
  // When one journey stops (cap, exhausted budget, error) the others request no new page, but pages already in
  // flight were admitted and charged: they complete and are written, so nothing paid for is dropped.
  const stopped = (): boolean => failure !== undefined || ctx.signal.aborted;

  const worker = async (): Promise<void> => {
    for (let index = queue.shift(); index !== undefined && !stopped(); index = queue.shift()) {
      try {
        await walkPartition(ctx, index, stopped, queue);
      } catch (err) {
        if (ctx.signal.aborted && failure === undefined) return; // shutdown, not a failure
        if (failure === undefined || rank(err) > rank(failure)) failure = err;
      }
    }
  };
  await Promise.all(Array.from({ length: ctx.plan.parallelism }, worker));
  if (failure !== undefined) throw failure;
}

/** The pages of `source` until `stop()` says so; checked before each page is requested, never mid-request. */
async function* until<T>(source: AsyncIterable<T>, stop: () => boolean): AsyncGenerator<T> {
  for await (const item of source) {
    yield item;
    if (stop()) return;
  }
}

async function walkPartition(ctx: WalkContext, index: number, stopped: () => boolean, queue: number[]): Promise<void> {
  const { signal } = ctx;
  const cp = ctx.checkpoint;
  const partition = cp.partitions[index];
  if (!partition) return;
  const resumeFrom = partition.state ?? undefined;
  let maxRecords: number | undefined;
  if (ctx.plan.quota !== null) {
    const left = ctx.plan.quota - cp.counts.fetched;
    if (left <= 0) throw new BudgetStopError('max_records', `maxRecords (${ctx.plan.quota}) reached`);
    maxRecords = (resumeFrom?.fetched ?? 0) + left;
  }
  const journey = ctx.source.journey(ctx.plan.entity, partition.filter as Filter, {
    runId: ctx.runId,
    view: ctx.view,
    pageSize: ctx.plan.pageSize,
    mode: ctx.mode,
    idField: ctx.idField,
    signal,
    ...(maxRecords === undefined ? {} : { maxRecords }),
    ...(resumeFrom ? { checkpoint: resumeFrom } : {}),
  });
  try {
    let last: JourneyPage | undefined;
    for await (const page of prefetch(until(journey, stopped), 1)) {
      await ctx.writePage(page);
      cp.partitions[index] = { filter: partition.filter, state: page.done ? null : page.checkpoint, done: page.done };
      await ctx.saveCheckpoint();
      last = page;
    }
    if (!last || last.done) cp.partitions[index] = { filter: partition.filter, state: null, done: true };
  } catch (err) {
    if (err instanceof CheckpointMismatchError && resumeFrom) {
      // The saved state belongs to another body (config edited between attempts): walk this partition afresh.
      cp.partitions[index] = { filter: partition.filter, state: null, done: false };
      queue.unshift(index);
      return;
    }
    if (err instanceof PaginationDepthError) {
      // The live index grew past the depth: split this partition and walk the pieces (dedup drops repeats).
      const filter = partition.filter as Filter;
      const count = await ctx.source.count(ctx.plan.entity, filter, { signal });
      const pieces = await ctx.source.splitPartition(ctx.plan.entity, { filter, count, headcount: { gte: 0, lte: 0 } }, { signal });
      cp.partitions[index] = { filter: partition.filter, state: null, done: true };
      for (const piece of pieces) queue.push(cp.partitions.push({ filter: piece.filter, state: null, done: false }) - 1);
      await ctx.saveCheckpoint();
      return;
    }
    throw err;
  }
}
