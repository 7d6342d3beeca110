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
  options: { fullResync?: boolean } = {},
): Promise<EnqueueResult> {
  const runId = randomUUID();
  const data: SyncJobData = { search, runId, trigger, requestedAt: new Date().toISOString(), ...(options.fullResync ? { fullResync: true } : {}) };
  const job = await queue.add(SYNC_JOB, data, { jobId: runId, deduplication: { id: search } });
  const jobId = job.id ?? runId;
  const state = await queue.getJobState(jobId);
  return { search, jobId, deduplicated: jobId !== runId, state };
}
