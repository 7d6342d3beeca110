import { describe, expect, it } from 'vitest';
import { createHubSpotSink } from '../../../src/crm/index.js';
import { DEFAULT_HUBSPOT_TOKEN, type HubSpotEmulator } from '../../../src/emulators/hubspot/index.js';
import { useHubSpot } from './hubspot-fixture.js';

const setup = useHubSpot();

/** `n` companies straight in the portal (the list API only needs them to exist); their HubSpot ids. */
function seed(emu: HubSpotEmulator, n: number, type = 'companies'): string[] {
  const table = emu.state.table(type);
  return Array.from(
    { length: n },
    (_, i) => table.put(emu.state.newId(), { name: `Company ${i}` }, new Date().toISOString()).id,
  );
}

const membersOf = (emu: HubSpotEmulator, listId: string): string[] =>
  [...(emu.state.lists.byId.get(listId)?.members.keys() ?? [])].sort();

describe('HubSpot lists: ensureList', () => {
  it('creates a MANUAL list once, then finds it by name whatever its case', async () => {
    const { emu, sink } = await setup();
    const id = await sink.lists.ensureList('companies', 'ICP Companies');
    expect(emu.state.lists.byId.get(id)).toMatchObject({
      name: 'ICP Companies',
      objectTypeId: '0-2',
      processingType: 'MANUAL',
    });
    expect(await sink.lists.ensureList('companies', 'icp companies')).toBe(id);
    expect(await sink.lists.ensureList('companies', 'ICP COMPANIES')).toBe(id);
    expect(emu.stats.byRoute['lists.create']).toBe(1);
    const people = await sink.lists.ensureList('contacts', 'VPs of engineering');
    expect(people).not.toBe(id);
    expect(emu.state.lists.byId.get(people)?.objectTypeId).toBe('0-1');
  });

  it('two runs creating the same list at once end with one list and one id', async () => {
    // 50 ms per answer: both lookups are answered 404 before either create reaches the portal.
    const { emu, sink, redis, keyPrefix } = await setup({ faults: { latencyMs: 50 } });
    const other = createHubSpotSink({
      accessToken: DEFAULT_HUBSPOT_TOKEN,
      baseUrl: emu.url,
      requestsPer10s: 190,
      retry: { baseDelayMs: 5 },
      redis,
      keyPrefix,
    });
    try {
      const [a, b] = await Promise.all([
        sink.lists.ensureList('companies', 'ICP'),
        other.lists.ensureList('companies', 'ICP'),
      ]);
      expect(a).toBe(b);
    } finally {
      await other.close();
    }
    expect(emu.stats.byRoute['lists.create']).toBe(2); // the race happened: one 200, one 409
    expect(emu.state.lists.byId.size).toBe(1);
  });

  it('refuses a list of that name that is not MANUAL, and an object lists cannot hold', async () => {
    const { emu, sink } = await setup();
    emu.state.lists.create('Dynamic ICP', '0-2', 'DYNAMIC');
    await expect(sink.lists.ensureList('companies', 'dynamic icp')).rejects.toMatchObject({
      code: 'crm_list_unusable',
      message: expect.stringMatching(/DYNAMIC, not MANUAL/),
    });
    await expect(sink.lists.ensureList('deals', 'Deals')).rejects.toMatchObject({ code: 'crm_list_unusable' });
  });

  it("refuses a name another object's list holds (names are unique among all lists)", async () => {
    const { sink } = await setup();
    await sink.lists.ensureList('companies', 'Key accounts');
    await expect(sink.lists.ensureList('contacts', 'key accounts')).rejects.toMatchObject({
      code: 'crm_list_unusable',
      details: { reason: 'name_taken' },
    });
  });

  it("goes through the portal's call policy: a 429 is waited out, a request past its deadline is retried", async () => {
    const { emu, sink } = await setup(
      { limits: { windowMs: 500 }, faults: { force429Next: 1, hang: { route: 'lists.byName', times: 1 } } },
      { requestTimeoutMs: 300 },
    );
    const id = await sink.lists.ensureList('companies', 'ICP');
    expect(emu.state.lists.byId.has(id)).toBe(true);
    expect(sink.throttled).toBe(1);
    expect(emu.faults.hung).toBe(1);
  });
});

describe('HubSpot lists: members', () => {
  it('adds and removes in batches HubSpot takes, ignoring duplicates and reporting unknown ids', async () => {
    const { emu, sink } = await setup();
    const ids = seed(emu, 250);
    const listId = await sink.lists.ensureList('companies', 'ICP');
    const first = await sink.lists.changeMembers(listId, ids.slice(0, 150), []);
    expect(first).toEqual({ added: ids.slice(0, 150), removed: [], missing: [] });
    expect(emu.stats.byRoute['lists.addAndRemove']).toBe(2); // 100 + 50
    // The first 150 again (already members: ignored), 100 new ones, 120 removed and one id HubSpot does not know.
    const second = await sink.lists.changeMembers(
      listId,
      [...ids.slice(0, 150), ...ids.slice(150)],
      [...ids.slice(0, 120), '999999'],
    );
    expect(second.added).toEqual(ids.slice(150));
    expect(second.removed).toEqual(ids.slice(0, 120));
    expect(second.missing).toEqual(['999999']);
    expect(emu.stats.byRoute['lists.addAndRemove']).toBe(2 + 4); // 371 ids, 100 per call
    expect(membersOf(emu, listId)).toEqual(ids.slice(120).sort());
  });

  it.each(['recordsIdsAdded', 'recordIdsAdded'] as const)(
    'reads the added ids when HubSpot spells them %s',
    async (spelling) => {
      const { emu, sink } = await setup({ listAddedSpelling: spelling });
      const ids = seed(emu, 3);
      const listId = await sink.lists.ensureList('companies', 'ICP');
      expect((await sink.lists.changeMembers(listId, ids, [])).added).toEqual(ids);
      emu.state.lists.addedSpelling = spelling === 'recordIdsAdded' ? 'recordsIdsAdded' : 'recordIdsAdded';
      const more = seed(emu, 2);
      expect((await sink.lists.changeMembers(listId, more, [ids[0] ?? ''])).added).toEqual(more);
    },
  );

  it('reads every page of members', async () => {
    const { emu, sink } = await setup();
    const ids = seed(emu, 600);
    const listId = await sink.lists.ensureList('companies', 'ICP');
    await sink.lists.changeMembers(listId, ids, []);
    const members = await sink.lists.members(listId);
    expect(members.sort()).toEqual([...ids].sort());
    expect(emu.stats.byRoute['lists.memberships']).toBe(3); // 250 + 250 + 100
    expect(await sink.lists.members(await sink.lists.ensureList('companies', 'Empty'))).toEqual([]);
  });

  it('an unknown list is a typed error, never a silent success', async () => {
    const { sink } = await setup();
    await expect(sink.lists.changeMembers('424242', ['1'], [])).rejects.toMatchObject({
      code: 'crm_list_not_found',
      details: { list: '424242' },
    });
    await expect(sink.lists.members('424242')).rejects.toMatchObject({ code: 'crm_list_not_found' });
  });

  it('a missing list scope is an auth error naming the scope', async () => {
    const { sink } = await setup({ faults: { missingScopes: new Set(['crm.lists.write']) } });
    await expect(sink.lists.ensureList('companies', 'ICP')).rejects.toMatchObject({
      code: 'crm_auth_failed',
      message: expect.stringMatching(/crm\.lists\.write/),
    });
  });
});

describe('HubSpot sink: archive by match key (not a list operation)', () => {
  it(
    'archives records 100 per call by their unique property; unknown keys are missing; archived records leave the ' +
      'list',
    async () => {
      const { emu, sink } = await setup();
      const table = emu.state.table('contacts');
      const emails = Array.from({ length: 150 }, (_, i) => `c${i}@x.io`);
      const ids = emails.map((email) => table.put(emu.state.newId(), { email }, new Date().toISOString()).id);
      const listId = await sink.lists.ensureList('contacts', 'ICP');
      await sink.lists.changeMembers(listId, ids, []);
      const target = { object: 'contacts', matchField: 'email', fields: [] };
      const result = await sink.archive(target, [...emails.slice(0, 140), 'nobody@x.io']);
      expect(result).toEqual({ archived: emails.slice(0, 140), missing: ['nobody@x.io'], refused: [] });
      expect(emu.stats.byRoute.archive).toBe(2);
      expect(emu.state.count('contacts')).toBe(10);
      expect(table.archived.size).toBe(140);
      expect((await sink.lists.members(listId)).sort()).toEqual(ids.slice(140).sort());
      // Archived again: HubSpot no longer holds them, nothing is archived twice.
      expect(await sink.archive(target, emails.slice(0, 2))).toEqual({
        archived: [],
        missing: emails.slice(0, 2),
        refused: [],
      });
      expect(emu.stats.byRoute.archive).toBe(2);
      // An upsert by an archived record's unique value creates a new record (the archived one stays restorable).
      const [again] = await sink.upsert(target, [{ key: emails[0]!, properties: { firstname: 'Back' } }]);
      expect(again).toMatchObject({ status: 'created' });
      expect(again?.status === 'created' && again.crmId).not.toBe(ids[0]);
      expect(table.archived.has(ids[0]!)).toBe(true);
    },
  );
});
