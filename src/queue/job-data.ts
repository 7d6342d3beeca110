/**
 * The queue contract between the scheduler, `trigger`, the worker bootstrap and the sync processor
 * (`jobs/sync-search.ts`). Job data is stored as plain JSON in Redis: it must never hold secrets or contact details.
 */
import type { Job } from 'bullmq';

/** Runs of saved searches. */
export const SYNC_QUEUE = 'prospect-sync';
/**
 * Scheduler ticks. Their own queue so a tick is handled at once even while every sync slot is busy: a tick that
 * fires during a run is then dropped by deduplication instead of queueing a second run behind the first.
 */
export const TICK_QUEUE = 'prospect-sync-ticks';

export const TICK_JOB = 'tick';
export const SYNC_JOB = 'sync';

/** Emitted by a Job Scheduler (scheduler id = search name). */
export interface TickJobData {
  search: string;
}

export type SyncTrigger = 'schedule' | 'manual' | 'cli';

export interface SyncJobData {
  search: string;
  /** Also the BullMQ job id of the run. */
  runId: string;
  trigger: SyncTrigger;
  /** ISO 8601. */
  requestedAt: string;
  /** `trigger --full-resync`: send every record even when its change hash is unchanged. Absent = false. */
  fullResync?: boolean;
  /** `trigger --force`: this run is not paced (`source.tokens.pace`). Absent = false. */
  force?: boolean;
}

/** What a sync job returns; F2's run summary satisfies it (extra fields are kept as the job's return value). */
export interface SyncJobResult {
  search: string;
  status: string;
}

/**
 * The sync processor the worker calls. `token` is the BullMQ lock token (needed by `job.moveToDelayed` before
 * throwing `DelayedError`). `signal` aborts on shutdown: finish or checkpoint the batch in flight, then THROW
 * (e.g. `signal.reason`): the worker puts the run back in `wait`, no attempt used, and a worker resumes it from the
 * checkpoint. Returning instead completes the run as it stands.
 */
export type SyncProcessor = (
  job: Job<SyncJobData, SyncJobResult>,
  token: string | undefined,
  signal: AbortSignal,
) => Promise<SyncJobResult>;
