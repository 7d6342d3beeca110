/**
 * A list past Node's argument limit for one call (issue 30 item 1): the membership, the list marks and the pending
 * leavers are written and read in chunks and pages, so a list of 200,000 members settles both ways; the list path
 * works page by page. Real HubSpot client on the emulator (its rate limit raised: the volume is the point), real Redis.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { addMembersToList, removeFromList } from '../../jobs/sync-search/list-members.js';
import type { SavedSearch } from '../../src/config/index.js';
import { createHubSpotSink, type FieldMapping, type HubSpotSink } from '../../src/crm/index.js';
import {
  DEFAULT_HUBSPOT_TOKEN,
  startHubSpotEmulator,
  type HubSpotEmulator,
} from '../../src/emulators/hubspot/index.js';
import { addRunMatched, MembershipStore } from '../../src/runs/membership-store.js';
import { testRedis } from '../helpers/redis.js';

const keyOf = (i: number): string => `c_${i}`;

const search = { name: 'big', list: { name: 'Big' } } as SavedSearch;
const mapping = {
  target: { object: 'companies', matchField: 'prospect_sync_id', fields: ['name'] },
  list: { name: 'Big' },
} as FieldMapping;

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

async function setup(members: number): Promise<{
  emu: HubSpotEmulator;
  sink: HubSpotSink;
  store: MembershipStore;
  redis: Awaited<ReturnType<typeof testRedis>>['redis'];
  prefix: string;
}> {
  const emu = await startHubSpotEmulator({ limits: { perTenSeconds: 1_000_000 } });
  const r = await testRedis('list-scale');
  const sink = createHubSpotSink({
    accessToken: DEFAULT_HUBSPOT_TOKEN,
    baseUrl: `${emu.url}/`,
    requestsPer10s: 1_000_000,
    retry: { baseDelayMs: 5 },
    redis: r.redis,
    keyPrefix: r.prefix,
  });
  close = async () => {
    await sink.close();
    await emu.close();
    await r.cleanup();
  };
  await sink.prepare(mapping.target); // the unique match property
  const table = emu.state.table('companies');
  const now = new Date().toISOString();
  for (let i = 0; i < members; i++) table.put(emu.state.newId(), { prospect_sync_id: keyOf(i) }, now);
  return {
    emu,
    sink,
    store: new MembershipStore(r.redis, 'big', 'portal', r.prefix),
    redis: r.redis,
    prefix: r.prefix,
  };
}

describe('a list of 200,000 members in the store', () => {
  it('is marked listed and unlisted, and its leavers cleared, each in one call', async () => {
    const members = 200_000;
    const r = await testRedis('list-scale');
    close = r.cleanup;
    const store = new MembershipStore(r.redis, 'big', 'portal', r.prefix);
    const keys = Array.from({ length: members }, (_, i) => keyOf(i));
    const rules = { confirmRuns: 1, maxShare: 1 };
    await addRunMatched(r.redis, 'big', 'r1', keys, r.prefix);
    expect(await store.settle('r1', rules)).toMatchObject({ entered: members, matched: members });
    let unlisted = 0;
    for await (const page of store.unlistedPages()) unlisted += page.length;
    expect(unlisted).toBe(members);

    await store.markListed(keys, true);
    expect(await store.counts(true)).toEqual({ members, pending: 0, unlisted: 0 });
    for await (const page of store.unlistedPages()) expect(page).toEqual([]);

    await store.markListed(keys, false);
    expect(await store.counts(true)).toEqual({ members, pending: 0, unlisted: members });
    expect(await store.settle('r2', rules)).toMatchObject({ left: members, pending: members });
    await store.done(keys);
    expect(await store.pendingCount()).toBe(0);
  }, 120_000);
});

describe('the list path, page by page', () => {
  it('adds every member on the first settle, writes nothing when unchanged, and removes every leaver', async () => {
    const members = 12_000;
    const { emu, sink, store, redis, prefix } = await setup(members);
    const keys = Array.from({ length: members }, (_, i) => keyOf(i));
    const rules = { confirmRuns: 1, maxShare: 1 };
    await addRunMatched(redis, 'big', 'r1', keys, prefix);
    expect(await store.settle('r1', rules)).toMatchObject({ entered: members, matched: members });

    const input = { store, search, crm: { sink, mapping } };
    expect(await addMembersToList(input)).toBe(members);
    const list = [...emu.state.lists.byId.values()][0]!;
    expect(list.members.size).toBe(members);
    expect(await store.counts(true)).toEqual({ members, pending: 0, unlisted: 0 });

    // Unchanged: nothing to add, no list write.
    const writes = emu.stats.byRoute['lists.addAndRemove'];
    await addRunMatched(redis, 'big', 'r2', keys, prefix);
    expect(await store.settle('r2', rules)).toMatchObject({ entered: 0, left: 0 });
    expect(await addMembersToList(input)).toBe(0);
    expect(emu.stats.byRoute['lists.addAndRemove']).toBe(writes);

    // Nobody matches any more: every member leaves (confirmRuns 1), and every leaver is taken out of the list.
    expect(await store.settle('r3', rules)).toMatchObject({ left: members, pending: members });
    const removed = await removeFromList(input, store.pendingPages(), (page) => store.done(page));
    expect(removed).toBe(members);
    expect(list.members.size).toBe(0);
    expect(await store.pendingCount()).toBe(0);
    // No record keeps a flag (member or list mark): the record flags are empty.
    expect(await redis.hget(`${prefix}:mirror:{big}:portal:records`, 'n')).toBe('0');
  }, 120_000);
});
