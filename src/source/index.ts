/**
 * The Sales-Intelligence source client: typed, budget-aware, header-governed access to the API.
 * Usable alone as a library; see docs/source-client.md.
 */
export { createSourceClient, defaultAccountKey } from './source-client.js';
export { DEFAULT_PATHS } from './api-paths.js';
export { fingerprintJourney } from './journey-fingerprint.js';
export { RecordQuota } from './record-quota.js';
export { Suppression } from './suppression.js';
export type { PageDedup } from './run-dedup.js';
export { CompactIdSet } from './compact-id-set.js';
export { RevealLog, type RevealLogLine } from './reveal-log.js';
export * from './errors.js';
export type { Entity, Filter, Operation } from './api-terms.js';
export type { ApiPaths } from './api-paths.js';
export type { RetryOptions } from './call-policy.js';
export type { FallbackLimits, GovernorOptions } from './rate-limit-headers.js';
export type { CallOptions, SourceClient, SourceClientOptions } from './source-client.js';
export type { JourneyCheckpoint, JourneyOptions, JourneyPage } from './journey.js';
export type { RevealPlan } from './reveal-planner.js';
export type { PartitionOptions, PartitionProgress } from './partitioner.js';
export type { Partition, PieceRange } from './partition-filter.js';
export type { BudgetLedger, CreditUsage, TokenBalance } from './budget-ledger.js';
export type { SourceStats } from './request-executor.js';
export type { DictionaryEntry } from './dictionary-entries.js';
