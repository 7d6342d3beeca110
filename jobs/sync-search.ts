/**
 * One run of one saved search, top to bottom: resolve -> plan -> open source and destination -> walk -> outcome.
 * Used by the queue job (`createSyncProcessor`, jobs/sync-search/queue-processor.ts) and by `prospect-sync run`.
 * How the run ended is decided in jobs/sync-search/run-outcome.ts; the attempt's state (lock, checkpoint, counters,
 * summary) is jobs/sync-search/run-session.ts.
 */
import type { SyncProcessor } from '../src/queue/job-data.js';
import type { RunSummary } from '../src/runs/run-summary.js';
import { destinationCeiling } from '../src/crm/destination-ceiling.js';
import { openDestination, type Destination } from './sync-search/open-destination.js';
import { openSoon } from './sync-search/open-soon.js';
import { startPlan, type PlanStart, type RunPlan } from './sync-search/plan-run.js';
import { queueProcessor, type ProcessorDeps } from './sync-search/queue-processor.js';
import { resolveSearch } from './sync-search/resolve-search.js';
import { outcomeFacts, refusalOf, runOutcome, walkEnding, type RunEnding } from './sync-search/run-outcome.js';
import type { RunRequest, SyncDeps } from './sync-search/run-request.js';
import { RunSession } from './sync-search/run-session.js';
import { failAboveOf, RefusalGuard, refusedShareEnding } from './sync-search/refusal-guard.js';
import { JourneyController } from './sync-search/concurrency.js';
import { walkPartitions, type PartitionFeed } from './sync-search/walk-partitions.js';

export type { ProcessorDeps, RunRequest, SyncDeps };

/** The BullMQ processor: `syncSearch` per job, delayed/retried/failed as jobs/sync-search/queue-processor.ts says. */
export function createSyncProcessor(deps: ProcessorDeps): SyncProcessor {
  return queueProcessor(syncSearch, deps);
}

/** Largest write (records) we gather before checkpointing: it bounds what a crash makes us fetch again. */
const MAX_WRITE_BATCH = 2_000;

/**
 * Runs one saved search to its end (or to a stop) and returns its summary, also appended to the run history.
 * Throws only before the run starts: config errors (unknown search, contacts not allowed) and RunAlreadyActiveError.
 */
export async function syncSearch(deps: SyncDeps, request: RunRequest): Promise<RunSummary> {
  const { config } = deps;
  const resolved = resolveSearch(config, request.search);
  const { search } = resolved;
  const run = await RunSession.open(deps, search.name, request);
  const earlier = run.finishedBefore; // this run already ended in an earlier attempt: report it, walk nothing
  if (earlier) return run.close().then(() => earlier);
  const { source, signal, resumed } = run;
  const end = async (ending: RunEnding): Promise<RunSummary> => run.finish(await runOutcome(ending, outcomeFacts(config, source.ledger), search.name));
  let destination: Destination | undefined;
  // The CRM end opens while the free count is in flight: the first CRM client of a process costs CPU (its package
  // loads, its API groups build), which would otherwise hold back the split's first counts (sync-search/open-soon.ts).
  const opening = openSoon(() => openDestination(config, search, resolved.destination, { redis: deps.redis, prefix: deps.prefix, logger: run.logger, fullResync: request.fullResync ?? false }));
  // Preflight (CRM credentials, object, fields): beside the free counts, before the walk's first search request (step 2).
  const checked = opening.then((d) => d.sink.preflight(d.mapping, { signal }));
  checked.catch(() => undefined); // awaited in step 2, or never when the plan refuses the run
  try {
    // 1. Plan: free count, budget and caps (a refusal needs only the count: nothing split, nothing walked). The
    // partitions are split while the walk runs (a resumed run keeps its partitions and count, splits only what an
    // earlier attempt had not settled).
    const start = await startPlan(source, config, resolved, {
      runId: request.runId, signal,
      ...(resumed ? { counted: resumed.counted, partitions: resumed.partitions.map((p) => ({ filter: p.filter, ...(p.count === undefined ? {} : { count: p.count }) })) } : {}),
      ...(resumed?.plan && !resumed.plan.complete ? { pending: { pieces: resumed.plan.pending, countsLeft: resumed.plan.countsLeft } } : {}),
    });
    const refused = refusalOf(start.plan, search.onShortfall, resumed !== null);
    if (refused) {
      destination = await opening.catch(() => undefined); // closed below; a refused run writes nothing
      request.onPlan?.(start.plan);
      return await end(refused);
    }
    const checkpoint = run.begin(start.plan, !start.streams);
    const planning = splitWhileWalking(start, run, signal);
    planning.complete.then((plan) => {
      run.planned(plan);
      request.onPlan?.(plan);
    }, () => undefined);

    try {
      // 2. The CRM end: mapping, change detection, the sink (its schema checked once, unless nothing is written).
      const [dest] = await Promise.all([opening, checked]);
      destination = dest;
      const dryRun = request.dryRun ?? false;
      if (!dryRun) await dest.writer.prepare(dest.mapping.target, { signal });

      // 3. Walk: per partition, page -> (map -> skip unchanged -> upsert) -> checkpoint; up to the first stop.
      // Partitions are walked as the split settles them, largest first among those waiting. Journeys in flight
      // follow the account's limit, the page latency, the CRM's pace and the account's other runs.
      const { plan } = start;
      const concurrency = new JourneyController({ source, config, redis: deps.redis, prefix: deps.prefix, pageSize: plan.pageSize, initial: plan.parallelism, max: plan.maxParallelism,
        crmRecordsPerSecond: () => dest.sink.ceiling?.() ?? destinationCeiling(resolved.destination), logger: run.logger,
      });
      await concurrency.start();
      const refusals = new RefusalGuard(); // hook (refusal guard): stops the walk when its first writes are all refused
      const walked = await walkPartitions({
        source, plan, runId: request.runId, view: resolved.view, idField: config.source.idField, mode: search.mode, checkpoint, signal,
        writeRecords: (records) => dest.writer.write(records, dest.mapping, { runVolume: plan.target, dryRun }),
        bookPage: (page, result) => run.recordWrite(page, result, dest.mapping).then(() => refusals.book(result)),
        saveCheckpoint: () => run.saveCheckpoint(),
        writeBatch: Math.max(plan.pageSize, Math.min(MAX_WRITE_BATCH, dest.sink.preferredBatchSize(plan.target))), writeBatchNow: (n) => refusals.writeBatch(n),
        concurrency, planning,
      }).finally(() => concurrency.stop());
      request.onWalk?.(walked);
    } finally {
      // The walk ended (or never started): a split still running stops here, its progress is in the checkpoint.
      await planning.stop();
    }

    // 4. Outcome: how the walk ended (all walked, record cap reached, aborted; failed when the CRM refused too much).
    return await end(refusedShareEnding(walkEnding(start.plan, checkpoint, signal.aborted), checkpoint, failAboveOf(config, search)));
  } catch (error) {
    return await end({ kind: 'threw', error, aborted: signal.aborted });
  } finally {
    await run.close(destination ?? (await opening.catch(() => undefined)));
  }
}

/**
 * The split of a streamed plan, run next to the walk: each settled round goes into the checkpoint (saved) and wakes
 * the walk; `stop` aborts what is left (a walk that stopped early) and waits for it, so nothing moves the checkpoint after.
 */
function splitWhileWalking(start: PlanStart, run: RunSession, signal: AbortSignal): { complete: Promise<RunPlan>; onAdded: PartitionFeed['onAdded']; stop(): Promise<void> } {
  const listeners = new Set<() => void>();
  const stopping = new AbortController();
  let saving = Promise.resolve();
  const complete = start.settle((progress) => {
    // The partitions are in the checkpoint now (the save follows): the walk may take them at once.
    const saved = run.planProgress(progress);
    saving = saving.then(() => saved);
    for (const l of listeners) l();
  }, AbortSignal.any([signal, stopping.signal])).then(async (plan) => {
    await saving;
    return plan;
  });
  return {
    complete,
    onAdded: (listener) => listeners.add(listener),
    stop: async () => {
      stopping.abort();
      await complete.catch(() => undefined);
      await saving.catch(() => undefined);
    },
  };
}
