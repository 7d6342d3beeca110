/**
 * The Sales-Intelligence source client: typed, budget-aware, header-governed access to the API.
 * Usable alone as a library; see docs/source-client.md.
 */
export { createSourceClient } from './source-client.js';
export { DEFAULT_PATHS } from './api-paths.js';
export { fingerprintJourney } from './journey-fingerprint.js';
export { RecordQuota } from './record-quota.js';
export * from './errors.js';
export type * from './types.js';
export type { DictionaryEntry } from './dictionary-entries.js';
