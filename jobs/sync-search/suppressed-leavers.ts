/**
 * Members found suppressed leave the search's mirror (docs/data-protection.md): at a complete run's mirror step,
 * before the settle, each key the run found suppressed that is a member (or a pending leaver) leaves at once, never
 * counted absent nor made pending, so the search's `onLeave` never acts on it. `suppressed: nothing` (the default)
 * leaves its CRM record as it is; `suppressed: archive` archives it as `onLeave: archive` does.
 */
import type { SavedSearch } from '../../src/config/index.js';
import { archiveLeavers } from '../../src/crm/leave-archive.js';
import type { MembershipStore } from '../../src/runs/membership-store.js';
import { dropRunSuppressed, runSuppressedPages } from '../../src/runs/run-suppressed.js';
import type { Redis } from 'ioredis';
import type { CrmEnd } from './open-destination.js';

export interface SuppressedLeaveInput {
  redis: Redis;
  prefix: string;
  search: SavedSearch;
  crm: CrmEnd;
  store: MembershipStore;
  instance: string;
  runId: string;
  signal?: AbortSignal;
}

/** Suppressed members that left, archived (or gone from the CRM already), and the first archive refusal. */
export interface SuppressedLeave {
  left: number;
  archived: number;
  reason?: string;
}

export async function leaveSuppressed(input: SuppressedLeaveInput): Promise<SuppressedLeave> {
  const { redis, prefix, search, store } = input;
  const out: SuppressedLeave = { left: 0, archived: 0 };
  const hashes = {
    redis,
    keyPrefix: prefix,
    destination: search.destination,
    instance: input.instance,
    search: search.name,
  };
  for await (const page of runSuppressedPages(redis, search.name, input.runId, prefix)) {
    const left = await store.leaveSuppressed(page);
    out.left += left.length;
    if (search.suppressed !== 'archive' || left.length === 0) continue;
    // A refused archive is reported, not retried: the record is no member any more (the CRM's own record stays).
    const done = await archiveLeavers({
      sink: input.crm.sink,
      target: input.crm.mapping.target,
      keys: left,
      hashes,
      ...(input.signal ? { signal: input.signal } : {}),
    });
    await store.markListed(done.acted, false);
    out.archived += done.acted.length;
    if (done.reason !== undefined) out.reason ??= done.reason;
  }
  await dropRunSuppressed(redis, search.name, input.runId, prefix);
  return out;
}
