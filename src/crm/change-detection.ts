import type { CrmRecord } from './crm-record.js';

/**
 * What a write asks of change detection: which records the CRM already holds as they are now, so they are not sent
 * again. Two stores answer it: a search's own records keep a fingerprint in the search's record state
 * (src/crm/search-change-detector.ts); any other object a search writes keeps per-field hashes per mapping
 * (src/crm/change-hash-store.ts). Only hashes are stored: no values, no contact details.
 */
export interface ChangeDetector {
  /**
   * Keys whose current values equal the stored ones. `upgrade`: rewrite unchanged records stored in an older form in
   * the current one (not in dry runs, which write nothing).
   */
  unchanged(records: CrmRecord[], options?: { upgrade?: boolean }): Promise<Set<string>>;
  /** Called only after the CRM accepted these records. */
  remember(records: CrmRecord[]): Promise<void>;
  /** Called for rejected records so they are sent again next run whatever their values. */
  forget(keys: string[]): Promise<void>;
}

/** Hashes of a field set nobody wrote for this long vanish (every read or write renews them): 90 days. */
export const CHANGE_HASH_TTL_SECONDS = 90 * 24 * 3600;
