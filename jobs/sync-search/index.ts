/**
 * The public surface of the sync job: what the command line (and anything else above jobs/) may use. Everything
 * else under jobs/sync-search/ is internal to the run and may change shape freely.
 */
export { syncSearch, createSyncProcessor, type SyncDeps, type RunRequest } from '../sync-search.js';
export { planRun, type RunPlan } from './plan-run.js';
export type { RunSpend } from './plan-forecast.js';
export { openSource } from './open-source.js';
export { planNextRun } from './refresh-plan.js';
export { preflightSearch } from './preflight-search.js';
export { resolveSearch } from './resolve-search.js';
export { CONFIG_ERROR_CODES, errorInfo, REDIS_UNAVAILABLE } from './run-errors.js';
export { followedRuns, followerInstance, type FollowerInstance } from './run-order.js';
export { reviewLeavers, type LeaversReport } from './leavers.js';
export { forgetPerson, type CrmErasure, type ForgetReport } from './forget-person.js';
export { mirrorState, type MirrorState } from './mirror-state.js';
