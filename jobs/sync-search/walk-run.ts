/**
 * Step 3 of a run, the walk: partitions stream in as the split settles them; per partition, pages -> write packer
 * (map, skip unchanged, upsert) -> ledger (counters, checkpoint); up to the first stop. Journeys in flight follow the
 * account's limit, the page latency, the CRM's pace and the account's other runs.
 */
import type { AppConfig } from '../../src/config/index.js';
import { destinationCeiling } from '../../src/crm/destination-ceiling.js';
import { Suppression } from '../../src/source/index.js';
import { readOptOuts } from './crm-opt-outs.js';
import type { CrmEnd } from './open-destination.js';
import { JourneyController } from './pacing/journey-controller.js';
import { writeBatchOf } from './pacing/write-batch.js';
import type { PlanStart } from './plan-run.js';
import type { ResolvedSearch } from './resolve-search.js';
import type { RunLedger } from './run-ledger.js';
import type { RunRequest } from './run-request.js';
import type { RunSession } from './run-session.js';
import type { StreamedPlan } from './stream-plan.js';
import { walkPartitions } from './walk-partitions.js';

export interface WalkRunInput {
  config: AppConfig;
  resolved: ResolvedSearch;
  request: RunRequest;
  run: RunSession;
  start: PlanStart;
  ledger: RunLedger;
  planning: StreamedPlan;
  crm: CrmEnd;
}

export async function walkRun(input: WalkRunInput): Promise<void> {
  const { config, resolved, request, run, start, ledger, crm } = input;
  const { plan } = start;
  const { source } = run;
  const dryRun = request.dryRun ?? false;
  const concurrency = new JourneyController({
    source,
    config,
    pageSize: plan.pageSize,
    initial: plan.parallelism,
    max: plan.maxParallelism,
    crmRecordsPerSecond: () => crm.sink.ceiling?.() ?? destinationCeiling(resolved.destination),
    logger: run.logger,
  });
  // Opt-outs kept in the CRM (suppress.crm) join the search's suppression; the persons it drops leave the mirror.
  const optedOut = await readOptOuts(crm, run.logger, run.signal);
  const suppression = new Suppression(
    [config.suppress, resolved.search.suppress],
    config.source.idField,
    config.suppress.paths,
    { from: resolved.search.matchOn.from, ...(optedOut ? { optedOut } : {}) },
    await source.erased(),
  );
  await concurrency.start();
  const walked = await walkPartitions({
    source,
    plan,
    runId: request.runId,
    // a dry run asks for no contacts (no credit); its journeys forecast them from the reveal store instead
    view: dryRun ? resolved.view.filter((v) => v !== 'contacts') : resolved.view,
    idField: config.source.idField,
    suppression,
    mode: resolved.search.mode,
    ledger,
    partitions: input.planning.partitions,
    signal: run.signal,
    writeSignal: run.writeSignal,
    crm,
    dryRun,
    writeBatch: writeBatchOf(plan.pageSize, crm.sink.preferredBatchSize(plan.target)),
    concurrency,
  }).finally(() => concurrency.stop());
  request.onWalk?.(walked);
}
