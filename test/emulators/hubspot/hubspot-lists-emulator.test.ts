import { Client } from '@hubspot/api-client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  DEFAULT_HUBSPOT_TOKEN,
  MAX_MEMBERSHIP_IDS,
  startHubSpotEmulator,
  type HubSpotEmulator,
} from '../../../src/emulators/hubspot/index.js';

/** The real client's typed Lists v3 APIs against the emulator: the wire shapes it sends and reads. */
let emu: HubSpotEmulator;
let client: Client;

beforeEach(async () => {
  emu = await startHubSpotEmulator({ limits: { perTenSeconds: 1000 } });
  client = new Client({ accessToken: DEFAULT_HUBSPOT_TOKEN, basePath: emu.url });
});
afterEach(async () => emu.close());

const seed = (n: number): string[] =>
  Array.from({ length: n }, () => emu.state.table('contacts').put(emu.state.newId(), {}, new Date().toISOString()).id);

const statusOf = (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    () => 200,
    (e: unknown) => (e as { code?: number }).code,
  );

describe('HubSpot emulator: Lists v3', () => {
  it(
    'creates a MANUAL list, refuses a second of the same name in any case (409), finds it by name ' +
      'case-insensitively',
    async () => {
      const created = await client.crm.lists.listsApi.create({
        name: 'VPs',
        objectTypeId: '0-1',
        processingType: 'MANUAL',
      });
      expect(created.list).toMatchObject({
        name: 'VPs',
        objectTypeId: '0-1',
        processingType: 'MANUAL',
        listVersion: 1,
      });
      expect(
        await statusOf(
          client.crm.lists.listsApi.create({ name: 'vps', objectTypeId: '0-2', processingType: 'MANUAL' }),
        ),
      ).toBe(409);
      const found = await client.crm.lists.listsApi.getByName('vPs', '0-1');
      expect(found.list.listId).toBe(created.list.listId);
      expect(await statusOf(client.crm.lists.listsApi.getByName('VPs', '0-2'))).toBe(404); // same name, other object
      expect(await statusOf(client.crm.lists.listsApi.getByName('Nobody', '0-1'))).toBe(404);
      expect(
        await statusOf(client.crm.lists.listsApi.create({ name: 'X', objectTypeId: '0-9', processingType: 'MANUAL' })),
      ).toBe(400);
    },
  );

  it(
    'changes members of MANUAL lists only, ignores members already in, answers unknown ids as missing, 404 for an ' +
      'unknown list',
    async () => {
      const ids = seed(3);
      const manual = (
        await client.crm.lists.listsApi.create({ name: 'M', objectTypeId: '0-1', processingType: 'MANUAL' })
      ).list.listId;
      const dynamic = (
        await client.crm.lists.listsApi.create({ name: 'D', objectTypeId: '0-1', processingType: 'DYNAMIC' })
      ).list.listId;
      const first = await client.crm.lists.membershipsApi.addAndRemove(manual, {
        recordIdsToAdd: ids.slice(0, 2),
        recordIdsToRemove: [],
      });
      expect(first).toMatchObject({ recordsIdsAdded: ids.slice(0, 2), recordIdsRemoved: [], recordIdsMissing: [] });
      const second = await client.crm.lists.membershipsApi.addAndRemove(manual, {
        recordIdsToAdd: [...ids, '777'],
        recordIdsToRemove: [ids[0] ?? ''],
      });
      expect(second).toMatchObject({
        recordsIdsAdded: [ids[2]],
        recordIdsRemoved: [ids[0]],
        recordIdsMissing: ['777'],
      });
      expect(
        await statusOf(
          client.crm.lists.membershipsApi.addAndRemove(dynamic, { recordIdsToAdd: ids, recordIdsToRemove: [] }),
        ),
      ).toBe(400);
      expect(emu.state.lists.byId.get(dynamic)?.members.size).toBe(0);
      expect(
        await statusOf(
          client.crm.lists.membershipsApi.addAndRemove('9999', { recordIdsToAdd: ids, recordIdsToRemove: [] }),
        ),
      ).toBe(404);
      expect(await statusOf(client.crm.lists.membershipsApi.getPage('9999'))).toBe(404);
    },
  );

  it(`refuses more than ${MAX_MEMBERSHIP_IDS} ids per change and pages over 250`, async () => {
    const ids = seed(MAX_MEMBERSHIP_IDS + 1);
    const listId = (
      await client.crm.lists.listsApi.create({ name: 'M', objectTypeId: '0-1', processingType: 'MANUAL' })
    ).list.listId;
    expect(
      await statusOf(
        client.crm.lists.membershipsApi.addAndRemove(listId, {
          recordIdsToAdd: ids.slice(1),
          recordIdsToRemove: ids.slice(0, 1),
        }),
      ),
    ).toBe(400);
    await client.crm.lists.membershipsApi.addAndRemove(listId, {
      recordIdsToAdd: ids.slice(0, MAX_MEMBERSHIP_IDS),
      recordIdsToRemove: [],
    });
    expect(await statusOf(client.crm.lists.membershipsApi.getPage(listId, undefined, undefined, 251))).toBe(400);
    const page = await client.crm.lists.membershipsApi.getPage(listId, undefined, undefined, 60);
    expect(page.results.map((r) => r.recordId)).toEqual(ids.slice(0, 60));
    const rest = await client.crm.lists.membershipsApi.getPage(listId, page.paging?.next?.after, undefined, 60);
    expect(rest.results.map((r) => r.recordId)).toEqual(ids.slice(60, MAX_MEMBERSHIP_IDS));
    expect(rest.paging?.next).toBeUndefined();
  });

  it('needs crm.lists scopes, and the object write scope for membership changes', async () => {
    const listId = (
      await client.crm.lists.listsApi.create({ name: 'M', objectTypeId: '0-1', processingType: 'MANUAL' })
    ).list.listId;
    emu.faults.missingScopes = new Set(['crm.objects.contacts.write']);
    expect(
      await statusOf(
        client.crm.lists.membershipsApi.addAndRemove(listId, { recordIdsToAdd: seed(1), recordIdsToRemove: [] }),
      ),
    ).toBe(403);
    emu.faults.missingScopes = new Set(['crm.lists.read']);
    expect(await statusOf(client.crm.lists.listsApi.getByName('M', '0-1'))).toBe(403);
    expect(await statusOf(client.crm.lists.membershipsApi.getPage(listId))).toBe(403);
  });
});
