/**
 * A search's record state per CRM instance: one field per match key in listpack buckets (src/shared/record-state.lua
 * and its prelude src/shared/linear-buckets.lua), holding the membership's flags (src/runs/membership-store.ts) and
 * the record's change fingerprint (src/crm/search-change-detector.ts) together, so the key is stored once. Both
 * layers reach it through this file: the keys' names and the scripts' preludes.
 */

/** The prefix of every key of a search's state: one hash tag per search, so a step is one script on a Cluster too. */
export function searchStateBase(search: string, prefix: string): string {
  return `${prefix}:mirror:{${search}}`;
}

/** The record state of `search` in CRM instance `instance`: its meta hash and its buckets' name prefix. */
export function recordStateKeys(prefix: string, search: string, instance: string): { meta: string; buckets: string } {
  const records = `${searchStateBase(search, prefix)}:${instance}:records`;
  return { meta: records, buckets: `${records}:` };
}

/** The preludes of a script on the record state, in the order they run (then the script's own file). */
export const RECORD_STATE_PRELUDE: readonly URL[] = [
  new URL('./linear-buckets.lua', import.meta.url),
  new URL('./record-state.lua', import.meta.url),
];
