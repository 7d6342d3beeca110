/**
 * Which change state a write uses (src/crm/change-detection.ts): a search's own records keep their fingerprints in
 * the search's record state, per search and CRM instance (src/crm/search-change-detector.ts); any other object keeps
 * change hashes per CRM instance, destination, object and mapping (src/crm/change-hash-store.ts). `instance` is the
 * CRM's own identity (HubSpot portal id, Salesforce org id): another portal or a restored org finds no state and is
 * sent everything.
 */
import type { Redis } from 'ioredis';
import type { ChangeDetector } from './change-detection.js';
import { createChangeHashStore } from './change-hash-store.js';
import type { ObjectTarget } from './crm-record.js';
import { createSearchChangeDetector, type SearchRecords } from './search-change-detector.js';

export { CHANGE_HASH_TTL_SECONDS, type ChangeDetector } from './change-detection.js';
export { changeHashKey, changeHashKeys, fieldHash, forgetChangeHashes } from './change-hash-store.js';
export type { SearchRecords } from './search-change-detector.js';

/** `own`: these are the records of that search (its object), else another object it writes. */
export function createChangeDetector(
  redis: Redis,
  keyPrefix: string,
  destination: string,
  target: ObjectTarget,
  instance = 'default',
  own?: SearchRecords,
): ChangeDetector {
  return own === undefined
    ? createChangeHashStore(redis, keyPrefix, destination, target, instance)
    : createSearchChangeDetector(redis, keyPrefix, destination, target, instance, own);
}

/** Where a search's change state is (the writer's: src/crm/crm-writer.ts), for the steps on its leavers. */
export interface SearchChangeState {
  redis: Redis;
  keyPrefix: string;
  destination: string;
  instance: string;
  search: string;
}

/** The search's records `keys` are written whole by its next run: their fingerprints go (their flags stay). */
export async function forgetOwnChanges(state: SearchChangeState, target: ObjectTarget, keys: string[]): Promise<void> {
  const own = { search: state.search };
  await createChangeDetector(state.redis, state.keyPrefix, state.destination, target, state.instance, own).forget(keys);
}
