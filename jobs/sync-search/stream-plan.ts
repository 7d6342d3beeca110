/**
 * The plan's partitions streamed into the walk: what the ledger already holds (a new plan's, or the partitions a
 * resumed run has not walked to their end) at once, then each round the split settles, recorded in the ledger (and
 * saved) before the walk may take it.
 */
import type { PartitionProgress } from '../../src/source/index.js';
import { PartitionStream } from './partition-stream.js';
import type { PlanStart, RunPlan } from './plan-run.js';
import type { RunLedger } from './run-ledger.js';

export interface StreamedPlan {
  partitions: PartitionStream;
  /** The complete plan, once the split is done and its last progress saved; rejects with the split's error. */
  complete: Promise<RunPlan>;
  /** Aborts a split still running (a walk that ended early) and waits for it: nothing moves the ledger after. */
  stop(): Promise<void>;
}

/** `onComplete`: told the complete plan once the split is done (not when it fails or is stopped). */
export function streamPlan(
  start: PlanStart,
  ledger: RunLedger,
  signal: AbortSignal,
  onComplete: (plan: RunPlan) => void = () => undefined,
): StreamedPlan {
  const partitions = new PartitionStream((index) => ledger.partition(index)?.count ?? 0);
  partitions.add(ledger.unwalked());
  const stopping = new AbortController();
  let saving = Promise.resolve();
  const onProgress = (progress: PartitionProgress): void => {
    const { added, saved } = ledger.addPlanned(progress);
    saving = saving.then(() => saved);
    partitions.add(added);
  };
  const complete = start.splitRest(onProgress, AbortSignal.any([signal, stopping.signal])).then(async (plan) => {
    await saving;
    return plan;
  });
  complete.then(
    (plan) => {
      partitions.planDone();
      onComplete(plan);
    },
    (err: unknown) => partitions.planFailed(err),
  );
  return {
    partitions,
    complete,
    stop: async () => {
      stopping.abort();
      await complete.catch(() => undefined);
      await saving.catch(() => undefined);
    },
  };
}
