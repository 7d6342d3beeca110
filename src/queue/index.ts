/** Public surface of the queue layer (BullMQ wiring). */
export * from './job-data.js';
export { SYNC_JOB_OPTIONS, TICK_JOB_OPTIONS, MAX_STARTED_ATTEMPTS, syncBackoff } from './job-options.js';
export { DEFAULT_QUEUE_PREFIX, queuePrefix, openQueues, type AppQueues, type QueueContext } from './queue-context.js';
export { enqueueRun, type EnqueueResult } from './enqueue-run.js';
export { runsInFlight } from './runs-in-flight.js';
export { repeatOptionsFor, ScheduleError, type SchedulableSearch } from './schedule-spec.js';
export { syncJobSchedulers, type SchedulerSyncResult } from './scheduler-sync.js';
export { LeaderLock } from './leader-lock.js';
export { startScheduler, leaderKey, type SchedulerHandle, type SchedulerOptions } from './scheduler.js';
export { startSyncWorker, SHUTDOWN_REASON, type SyncWorkerHandle, type SyncWorkerOptions } from './sync-worker.js';
export { exitOnSignals, type ShutdownOptions } from './shutdown.js';
