/**
 * How fast a killed worker's run is taken over, and what a busy worker survives. BullMQ's defaults (30 s lock, 30 s
 * stalled check) left a killed worker's run idle for 60-70 s. With these a run is picked up again at most
 * lockDuration + stalledInterval (13 s) after its worker died, while a worker whose event loop is blocked keeps its
 * runs as long as renewals are not late by more than lockDuration - lockRenewTime (8 s): a 5 s CPU stall is fine.
 * The run lock (src/runs/run-lock.ts) has the same lifetime and renewal, so it never outlives the job's lock.
 */

/** A job's lock lives this long without renewal (BullMQ `lockDuration`). */
export const SYNC_LOCK_DURATION_MS = 10_000;

/** Locks are renewed about this often (BullMQ `lockRenewTime`; its timer ticks at half of it). */
export const SYNC_LOCK_RENEW_MS = 2_000;

/** Every this long one worker looks for jobs whose lock lapsed (BullMQ `stalledInterval`). */
export const SYNC_STALLED_INTERVAL_MS = 3_000;
