/**
 * Acting on a search's confirmed leavers (its `onLeave`), after a complete run the leave guard let through
 * (jobs/sync-search/mirror-step.ts) or on purpose (`prospect-sync leavers <search> --apply`: `reviewLeavers`).
 */
import type { Redis } from 'ioredis';
import type { AppConfig, SavedSearch } from '../../src/config/index.js';
import { archiveLeavers } from '../../src/crm/leave-archive.js';
import { applyLeaveFields } from '../../src/crm/leave-fields.js';
import type { CrmSink, FieldMapping } from '../../src/crm/index.js';
import { MembershipStore, type LeaveRules } from '../../src/runs/membership-store.js';
import { acquireRunLock } from '../../src/runs/run-lock.js';
import { removeFromList } from './list-members.js';
import { openDestination } from './open-destination.js';
import { resolveSearch } from './resolve-search.js';
import { redactText } from './run-errors.js';
import type { SyncDeps } from './run-request.js';

export interface LeaversInput {
  redis: Redis;
  prefix: string;
  search: SavedSearch;
  crm: { sink: CrmSink; mapping: FieldMapping };
  signal?: AbortSignal;
}

/** The search's leave rules: its own `leave:` block over the top-level one. */
export function leaveRules(config: AppConfig, search: SavedSearch): LeaveRules {
  // Configs built in code may lack the block: the schema's defaults then.
  return {
    confirmRuns: search.leave?.confirmRuns ?? config.leave?.confirmRuns ?? 2,
    maxShare: search.leave?.maxShare ?? config.leave?.maxShare ?? 0.1,
  };
}

/** The search's membership in the CRM instance its sink writes to. */
export async function membershipOf(
  input: Pick<LeaversInput, 'redis' | 'prefix' | 'search' | 'crm' | 'signal'>,
): Promise<{ store: MembershipStore; instance: string }> {
  const { sink } = input.crm;
  const instance = sink.identity ? await sink.identity(input.signal ? { signal: input.signal } : {}) : 'default';
  return { store: new MembershipStore(input.redis, input.search.name, instance, input.prefix), instance };
}

/**
 * Acts on every pending leaver: `nothing` only clears them; `removeFromList` removes them from the search's list
 * (`listRemoved`: how many the CRM removed); `setFields` writes the fields and `archive` archives the records (those
 * the CRM no longer holds count as done); leavers the CRM refused stay pending. Returns how many were acted on and
 * how many are still pending.
 */
export async function actOnLeavers(
  input: LeaversInput,
): Promise<{ acted: number; pending: number; reason?: string; listRemoved?: number }> {
  const { store, instance } = await membershipOf(input);
  const onLeave = input.search.onLeave ?? 'nothing';
  // Page by page (each page acted on and cleared before the next is read): the worker never holds every leaver. A
  // page may repeat keys of an earlier one: the counts come from the pending set, not from the pages.
  const pages = store.pendingPages();
  const before = await store.pendingCount();
  if (onLeave === 'nothing') {
    for await (const keys of pages) await store.done(keys);
    return { acted: 0, pending: 0 };
  }
  if (onLeave === 'removeFromList') {
    const listRemoved = await removeFromList({ ...input, store }, pages, (keys) => store.done(keys));
    return { acted: before - (await store.pendingCount()), pending: 0, listRemoved };
  }
  const hashes = {
    redis: input.redis,
    keyPrefix: input.prefix,
    destination: input.search.destination,
    instance,
    search: input.search.name,
  };
  let reason: string | undefined;
  for await (const keys of pages) {
    const common = {
      sink: input.crm.sink,
      target: input.crm.mapping.target,
      keys,
      hashes,
      ...(input.signal ? { signal: input.signal } : {}),
    };
    const page =
      onLeave === 'archive'
        ? await archiveLeavers(common)
        : await applyLeaveFields({ ...common, setFields: onLeave.setFields });
    // An archived record left every list of the CRM: if it re-enters, the list step adds it (its new record) again.
    if (onLeave === 'archive') await store.markListed(page.acted, false);
    await store.done(page.acted);
    reason ??= page.reason;
  }
  const pending = await store.pendingCount();
  return { acted: before - pending, pending, ...(reason === undefined ? {} : { reason: redactText(reason) }) };
}

/** What `prospect-sync leavers` shows: the pending leavers (match keys), and with `--apply` what was done. */
export interface LeaversReport {
  search: string;
  onLeave: SavedSearch['onLeave'];
  pending: string[];
  applied?: { acted: number; pending: number; reason?: string; listRemoved?: number };
}

/**
 * `prospect-sync leavers <search> [--apply]`: lists the confirmed leavers not acted on (held back by the leave
 * guard, or refused by the CRM); `apply` acts on them on purpose and makes the last complete run's matches the
 * guard's new baseline (the drop was meant).
 */
export async function reviewLeavers(deps: SyncDeps, name: string, apply: boolean): Promise<LeaversReport> {
  const { search, destination } = resolveSearch(deps.config, name);
  const crm = await openDestination(deps.config, search, destination, {
    redis: deps.redis,
    prefix: deps.prefix,
    logger: deps.logger,
  });
  try {
    const io = { redis: deps.redis, prefix: deps.prefix, search, crm };
    const { store } = await membershipOf(io);
    const pending = await store.pending();
    const onLeave = search.onLeave ?? 'nothing';
    if (!apply) return { search: name, onLeave, pending };
    // Under the search's run lock: a run's mirror step cannot settle the membership in between (RunAlreadyActiveError).
    const lock = await acquireRunLock(deps.redis, name, `leavers-${Date.now()}`, { prefix: deps.prefix });
    try {
      const applied = await actOnLeavers(io);
      await store.acceptLastMatched();
      return { search: name, onLeave, pending, applied };
    } finally {
      await lock.release().catch(() => undefined);
    }
  } finally {
    await crm.sink.close();
  }
}
