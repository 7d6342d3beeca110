/**
 * One run of one saved search, top to bottom: resolve -> plan -> open source and destination -> walk -> outcome.
 * The walk streams the plan's partitions (sync-search/walk-run.ts, stream-plan.ts); sync-search/run-ledger.ts owns
 * the run's state and checkpoint, run-outcome.ts decides how it ended. For the queue job and `prospect-sync run`.
 */
import type { SyncProcessor } from '../src/queue/job-data.js';
import type { RunSummary } from '../src/runs/run-summary.js';
import { openCrmEnd } from './sync-search/crm-opening.js';
import type { CrmEnd } from './sync-search/open-destination.js';
import { runSpend } from './sync-search/plan-forecast.js';
import { startPlan } from './sync-search/plan-run.js';
import { queueProcessor, type ProcessorDeps } from './sync-search/queue-processor.js';
import { resolveSearch } from './sync-search/resolve-search.js';
import { outcomeFacts, refusalOf, runOutcome, type RunEnding, type RunLimit } from './sync-search/run-outcome.js';
import type { RunRequest, SyncDeps } from './sync-search/run-request.js';
import { RunSession } from './sync-search/run-session.js';
import { guardedWalkEnding } from './sync-search/refusal-guard.js';
import { streamPlan } from './sync-search/stream-plan.js';
import { walkRun } from './sync-search/walk-run.js';

export type { ProcessorDeps, RunRequest, SyncDeps };

/** The BullMQ processor: `syncSearch` per job, delayed/retried/failed as jobs/sync-search/queue-processor.ts says. */
export function createSyncProcessor(deps: ProcessorDeps): SyncProcessor {
  return queueProcessor(syncSearch, deps);
}

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
  const { source, signal } = run;
  const dryRun = request.dryRun ?? false;
  let limit: RunLimit | undefined; // what set the run's record cap, once planned
  const end = async (ending: RunEnding): Promise<RunSummary> =>
    run.finish(
      await runOutcome(ending, outcomeFacts(config, source.ledger, request.lastAttempt), search.name, limit),
      crm,
    );
  let crm: CrmEnd | undefined; // the CRM end, once open (closed with the run)
  const { opening, ready, ceiling } = openCrmEnd(deps, config, resolved, run, request.fullResync ?? false);
  try {
    // 1. Plan: free count, budget and caps (a refusal needs only the count); the split, sized for the CRM's ceiling
    // as its preflight answer told it, runs while the walk does (a resumed run splits only what is left).
    const start = await startPlan(source, config, resolved, {
      runId: request.runId,
      signal,
      ...(await run.refreshPlan(resolved, opening)),
      ceiling,
      ...(dryRun ? { dryRun: request.sample === undefined ? {} : { sample: request.sample } } : {}),
    });
    limit = start.plan.quotaBy;
    const refused = refusalOf(start.plan, search.onShortfall, run.resumed !== null);
    if (refused) {
      crm = await opening.catch(() => undefined); // closed below; a refused run writes nothing
      request.onPlan?.(start.plan);
      return await end(refused);
    }
    // Before the first token: what the run will spend (a dry run: its walk, no credit).
    request.onSpend?.(runSpend(start.plan, dryRun));
    const ledger = run.begin(start.plan, !start.streams);
    const planning = streamPlan(start, ledger, signal, (plan) => {
      run.planned(plan);
      request.onPlan?.(plan);
    });
    try {
      // 2. The CRM end: mapping, change detection, the sink (its schema checked once, unless nothing is written).
      crm = await ready;
      ledger.writesThrough(crm.mapping);
      if (!dryRun) await crm.writer.prepare(crm.mapping.target, { signal });
      // 3. Walk (jobs/sync-search/walk-run.ts), up to the first stop.
      await walkRun({ config, resolved, request, run, start, ledger, planning, crm });
    } finally {
      // The walk ended (or never started): a split still running stops here, its progress is in the ledger.
      await planning.stop();
    }
    // 4. Outcome: how the walk ended (all walked, record cap reached, aborted; failed when the CRM refused too much).
    return await end(guardedWalkEnding(start.plan, ledger, signal.aborted, config, search));
  } catch (error) {
    return await end({ kind: 'threw', error, aborted: signal.aborted });
  } finally {
    await run.close(crm ?? (await opening.catch(() => undefined)));
  }
}
