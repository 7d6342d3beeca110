/**
 * The walk: journeys over the partitions of the run's stream, as many at once as its pacing says, each batch
 * written through the write packer and committed to the ledger.
 */
import { BudgetStopError, RecordQuota, TokensExhaustedError } from '../../src/source/index.js';
import type { WalkContext, WalkStats } from './walk-context.js';
import { walkJourney, type JourneyDeps } from './walk-journey.js';
import { WritePacker } from './write-packer.js';

/** Which stop wins when several journeys stop at once: an exhausted budget first (the run is delayed), then caps. */
function rank(err: unknown): number {
  if (err instanceof TokensExhaustedError) return 3;
  if (err instanceof BudgetStopError) return 2;
  return 1;
}

/**
 * Walks the partitions of `ctx.partitions`, largest waiting first, with as many journeys at once as
 * `ctx.concurrency` says (re-asked whenever something it sizes from changes: a page arrived, a write was answered,
 * a journey ended; fewer journeys take effect as running ones finish their partition), or every partition left
 * once the run's last window has come (its `endGame`). In each journey page n+1 is fetched while page n is
 * written, and the journey moves in the ledger only after the CRM accepted page n: each journey holds at most one
 * write batch and one page fetched but unwritten, so a slow CRM slows the walk instead of filling memory. The
 * first journey to fail stops the others (after their batch in flight) and its error is thrown; the ledger keeps
 * everything accepted so far.
 */
export async function walkPartitions(ctx: WalkContext): Promise<WalkStats> {
  const { ledger, partitions } = ctx;
  // maxRecords below the count: one cap of distinct records shared by the parallel journeys, counting what earlier
  // attempts kept (the user's limit: live-index repeats do not use it up)
  const quota = ctx.plan.quota === null ? undefined : new RecordQuota(ctx.plan.quota, ledger.kept);
  let failure: unknown;
  const stopping = new AbortController();
  const stop = AbortSignal.any([ctx.signal, stopping.signal]);
  const fail = (err: unknown): void => {
    if (ctx.signal.aborted && failure === undefined) return; // shutdown, not a failure
    if (failure === undefined || rank(err) > rank(failure)) failure = err;
    stopping.abort();
  };
  // When one journey stops (cap, exhausted budget, error) the others request no new page, but pages already in
  // flight were admitted and charged: they complete and are written, so nothing paid for is dropped.
  const stopped = (): boolean => stop.aborted;
  const stats: WalkStats = { peakJourneys: 0, peakUnwritten: 0, packedWrites: 0 };
  const gauge = {
    unwritten: 0,
    add(n: number): void {
      this.unwritten += n;
      stats.peakUnwritten = Math.max(stats.peakUnwritten, this.unwritten);
    },
  };
  const bound = ctx.mode === 'offset' ? 1 : Math.max(1, ctx.plan.maxParallelism);
  // Something the journeys' figure depends on changed: the walk looks again whether it has room.
  let wake: () => void = () => undefined;
  const changed = (): void => wake();
  const nextChange = (): Promise<void> =>
    new Promise<void>((resolve) => {
      wake = resolve;
    });

  const running = new Set<Promise<void>>();
  // A journey whose partition's last batch waits in the packer (or is being written) is done walking: another starts in
  // its place.
  const walking = (): number => running.size - packer.finishedJourneys;
  // Records fetched so far (earlier attempts' included): what is left of the run decides when its last window came.
  let fetched = ledger.fetched;
  const left = (): { pages: number; partitions: number; recordsPerJourney: number } => {
    const partitionsLeft = partitions.waitingCount + walking();
    const pages = Math.ceil(Math.max(0, ctx.plan.target - fetched) / ctx.plan.pageSize) + partitionsLeft;
    return { pages, partitions: partitionsLeft, recordsPerJourney: ctx.writeBatch + ctx.plan.pageSize };
  };
  const target = (): number => {
    const sized = ctx.concurrency?.target() ?? ctx.plan.parallelism;
    // Not while the split still adds partitions: what is left is not known yet.
    const last = partitions.planning || ctx.mode === 'offset' ? 0 : (ctx.concurrency?.endGame?.(left()) ?? 0);
    return Math.min(bound, Math.max(sized, last));
  };
  const room = (): boolean => walking() < target();
  const packer: WritePacker = new WritePacker({
    get size() {
      return ledger.writeBatch(ctx.writeBatch);
    },
    ledger,
    stopped,
    write: (records) =>
      ctx.crm.writer.write(records, ctx.crm.mapping, {
        runVolume: ctx.plan.target,
        dryRun: ctx.dryRun,
        signal: ctx.writeSignal,
      }),
    joinable: (waiting) => running.size > waiting || (!stopped() && partitions.waitingCount > 0 && room()),
    onHold: changed,
    onWrite: (records, ms) => {
      ctx.concurrency?.writeTimed(records, ms);
      changed();
    },
  });
  const journeyDeps: JourneyDeps = {
    ...ctx,
    quota,
    stopped,
    gauge,
    packer,
    onFetched: (records) => {
      fetched += records;
      ctx.concurrency?.pageFetched();
      changed();
    },
  };
  const start = (index: number): void => {
    const walk = walkJourney(journeyDeps, index).catch(fail);
    const tracked = walk.finally(() => {
      running.delete(tracked);
      partitions.release();
      // held partial batches may have nobody left to be packed with
      packer.poke();
      changed();
    });
    running.add(tracked);
    stats.peakJourneys = Math.max(stats.peakJourneys, walking());
  };
  // A stop: the journeys request no new page, and what the packer holds may have to go now.
  const onStop = (): void => {
    packer.poke();
    changed();
  };
  stop.addEventListener('abort', onStop, { once: true });
  const roomOrStop = async (): Promise<void> => {
    while (!stopped() && !room()) {
      // no journey can start: what the packer holds may have nobody left to join it
      packer.poke();
      await nextChange();
    }
  };
  try {
    await roomOrStop();
    for await (const index of partitions.take(stop)) {
      start(index);
      await roomOrStop();
    }
  } catch (err) {
    fail(err); // the plan's split failed: the run fails with it
  }
  await Promise.all(running);
  stop.removeEventListener('abort', onStop);
  packer.close();
  stats.packedWrites = packer.packedWrites;
  if (failure !== undefined) throw failure;
  return stats;
}
