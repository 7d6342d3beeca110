/**
 * One partition's journey: its pages, gathered into write batches and handed to the write packer, which commits
 * each to the run's ledger once the CRM answered it. A partition that grew past the depth limit is split and its
 * pieces go back into the run's partition stream.
 */
import {
  CheckpointMismatchError,
  PaginationDepthError,
  type Filter,
  type JourneyPage,
  type RecordQuota,
} from '../../src/source/index.js';
import { prefetch } from './prefetch.js';
import type { WalkContext } from './walk-context.js';
import type { WritePacker } from './write-packer.js';

/** What a journey shares with the walk that started it. */
export interface JourneyDeps extends WalkContext {
  /** The run's record cap, shared by its journeys (maxRecords below the count). */
  quota: RecordQuota | undefined;
  /** The walk stopped: no new page is requested. */
  stopped(): boolean;
  /** Records fetched and not yet written, across the walk's journeys. */
  gauge: { add(n: number): void };
  packer: WritePacker;
  /** A page of `records` arrived from the API. */
  onFetched(records: number): void;
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
    admitted: pages.flatMap((p) => p.admitted ?? []),
    suppressedKeys: pages.flatMap((p) => p.suppressedKeys ?? []),
    tokensCharged: pages.reduce((n, p) => n + p.tokensCharged, 0),
    creditsCharged: pages.reduce((n, p) => n + p.creditsCharged, 0),
    restarted: pages.some((p) => p.restarted),
    ...(pages.some((p) => p.revealed)
      ? {
          revealed: pages.flatMap((p) => p.revealed ?? []),
          revealSkipped: pages.reduce((n, p) => n + (p.revealSkipped ?? 0), 0),
          revealTally: mergeTallies(pages.map((p) => p.revealTally)),
        }
      : {}),
  };
}

/** Persons by reveal day of several pages, added up. */
function mergeTallies(tallies: (ReadonlyMap<number, number> | undefined)[]): Map<number, number> {
  const sum = new Map<number, number>();
  for (const tally of tallies) for (const [day, n] of tally ?? []) sum.set(day, (sum.get(day) ?? 0) + n);
  return sum;
}

/** The pages of `source` until `stop()` says so; checked before each page is requested, never mid-request. */
async function* until<T>(source: AsyncIterable<T>, stop: () => boolean): AsyncGenerator<T> {
  for await (const item of source) {
    yield item;
    if (stop()) return;
  }
}

/** Tells the walk of each page as it arrives from the API (before it waits in the prefetch buffer). */
async function* arrived(source: AsyncIterable<JourneyPage>, deps: JourneyDeps): AsyncGenerator<JourneyPage> {
  for await (const page of source) {
    deps.gauge.add(page.returned);
    deps.onFetched(page.returned);
    yield page;
  }
}

/** Walks partition `index` of the ledger from where it stands to its end, or to the walk's stop. */
export async function walkJourney(ctx: JourneyDeps, index: number): Promise<void> {
  const { signal, ledger, quota, packer, gauge } = ctx;
  const partition = ledger.partition(index);
  if (!partition) return;
  const resumeFrom = partition.state ?? undefined;
  const journey = ctx.source.journey(ctx.plan.entity, partition.filter as Filter, {
    runId: ctx.runId,
    ...(ledger.dedup ? { dedup: ledger.dedup } : {}),
    view: ctx.view,
    pageSize: ctx.plan.pageSize,
    mode: ctx.mode,
    idField: ctx.idField,
    suppression: ctx.suppression,
    signal,
    // offset mode is a top-N: its journey needs the N; cursor journeys share the run's record cap, if any
    ...(ctx.mode === 'offset' ? { maxRecords: ctx.plan.target } : {}),
    ...(quota ? { quota } : {}),
    ...(partition.count === undefined ? {} : { expected: partition.count }),
    ...(resumeFrom ? { checkpoint: resumeFrom } : {}),
  });
  // Pages are written in batches of about `writeBatch` records (the sink's preferred size, one page or several);
  // a smaller batch (the partition's last) is packed with other journeys' (jobs/sync-search/write-packer.ts). The
  // ledger commits the batch once it is written.
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
      for await (const page of prefetch(arrived(until(journey, ctx.stopped), ctx), 1)) {
        pending.push(page);
        if (page.done || pending.reduce((n, p) => n + p.returned, 0) >= ledger.writeBatch(ctx.writeBatch))
          await flush();
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
      ctx.partitions.retry(index);
      return;
    }
    if (err instanceof PaginationDepthError) {
      // The live index grew past the depth: split this partition and walk the pieces (dedup drops repeats).
      const filter = partition.filter as Filter;
      const count = await ctx.source.count(ctx.plan.entity, filter, { signal });
      const pieces = await ctx.source.splitPartition(
        ctx.plan.entity,
        { filter, count, headcount: { gte: 0, lte: 0 } },
        { signal },
      );
      // The pieces are walked after the planned partitions (they have no planned count).
      ctx.partitions.add(
        await ledger.replace(
          index,
          pieces.map((piece) => piece.filter),
        ),
      );
      return;
    }
    throw err;
  }
}
