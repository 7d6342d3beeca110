import { randomUUID } from 'node:crypto';
import type { Queue } from 'bullmq';
import { SYNC_JOB, type SyncJobData, type SyncJobResult, type SyncTrigger } from './job-data.js';

export interface EnqueueResult {
  search: string;
  /** The run that will happen: the new one, or the one already queued/active/delayed. */
  jobId: string;
  /** True when a run of this search was already queued, active or delayed and nothing new was added. */
  deduplicated: boolean;
  /** BullMQ state of that job right after the call ('waiting', 'active', 'delayed', ...). */
  state: string;
}

/**
 * Adds a run of `search` unless one is already queued, active or delayed. The deduplication id is the search name
 * and has no TTL, so it holds until that run completes or fails: never two runs of one search at once.
 * The job id is the run id, which is how a deduplicated add is told apart (BullMQ then returns the existing id).
 */
export async function enqueueRun(
  queue: Queue<SyncJobData, SyncJobResult>,
  search: string,
  trigger: SyncTrigger,
  options: { fullResync?: boolean; force?: boolean } = {},
): Promise<EnqueueResult> {
  const runId = randomUUID();
  const data: SyncJobData = {
    search,
    runId,
    trigger,
    requestedAt: new Date().toISOString(),
    ...(options.fullResync ? { fullResync: true } : {}),
    ...(options.force ? { force: true } : {}),
  };
  const job = await queue.add(SYNC_JOB, data, { jobId: runId, deduplication: { id: search } });
  const jobId = job.id ?? runId;
  if (jobId !== runId && options.force) await forceWaiting(queue, jobId);
  const state = await queue.getJobState(jobId);
  return { search, jobId, deduplicated: jobId !== runId, state };
}

/** `trigger --force` on a search whose run waits (delayed: paced, or its budget): that run goes now, unpaced. */
async function forceWaiting(queue: Queue<SyncJobData, SyncJobResult>, jobId: string): Promise<void> {
  const job = await queue.getJob(jobId);
  if (!job || (await job.getState()) !== 'delayed') return;
  await job.updateData({ ...job.data, force: true });
  // It may have become due meanwhile: then it runs anyway, with `force` in its data.
  await job.promote().catch(() => undefined);
}
