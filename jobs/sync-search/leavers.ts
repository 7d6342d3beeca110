/**
 * Acting on a search's confirmed leavers (its `onLeave`), after a complete run the leave guard let through
 * (jobs/sync-search/mirror-step.ts) or on purpose (`prospect-sync leavers <search> --apply`).
 */
import type { Redis } from 'ioredis';
import type { AppConfig, SavedSearch } from '../../src/config/index.js';
import { applyLeaveFields } from '../../src/crm/leave-fields.js';
import type { CrmSink, FieldMapping } from '../../src/crm/index.js';
import { MembershipStore, type LeaveRules } from '../../src/runs/membership-store.js';

export interface LeaversInput {
  redis: Redis;
  prefix: string;
  search: SavedSearch;
  crm: { sink: CrmSink; mapping: FieldMapping };
  signal?: AbortSignal;
}

/** The search's leave rules: its own `leave:` block over the top-level one. */
export function leaveRules(config: AppConfig, search: SavedSearch): LeaveRules {
  return { confirmRuns: search.leave?.confirmRuns ?? config.leave.confirmRuns, maxShare: search.leave?.maxShare ?? config.leave.maxShare };
}

/** The search's membership in the CRM instance its sink writes to. */
export async function membershipOf(input: Pick<LeaversInput, 'redis' | 'prefix' | 'search' | 'crm' | 'signal'>): Promise<{ store: MembershipStore; instance: string }> {
  const { sink } = input.crm;
  const instance = sink.identity ? await sink.identity(input.signal ? { signal: input.signal } : {}) : 'default';
  return { store: new MembershipStore(input.redis, input.search.name, instance, input.prefix), instance };
}

/**
 * Acts on every pending leaver: `nothing` only clears them; `setFields` writes the fields, and leavers the CRM
 * refused stay pending. Returns how many were acted on and how many are still pending.
 */
export async function actOnLeavers(input: LeaversInput): Promise<{ acted: number; pending: number }> {
  const { store, instance } = await membershipOf(input);
  const keys = await store.pending();
  const onLeave = input.search.onLeave;
  if (onLeave === 'nothing') {
    await store.done(keys);
    return { acted: 0, pending: 0 };
  }
  const { acted, refused } = await applyLeaveFields({
    sink: input.crm.sink, target: input.crm.mapping.target, keys, setFields: onLeave.setFields,
    hashes: { redis: input.redis, keyPrefix: input.prefix, destination: input.search.destination, instance }, ...(input.signal ? { signal: input.signal } : {}),
  });
  await store.done(acted);
  return { acted: acted.length, pending: refused };
}
