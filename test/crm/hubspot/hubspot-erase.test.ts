/**
 * The HubSpot sink's `erase` (`forget --crm`), real @hubspot/api-client against the emulator: `gdpr-delete` deletes
 * contacts for good through `POST /crm/v3/objects/contacts/gdpr-delete` (not restorable, out of lists), `archive`
 * archives them (restorable); keys HubSpot does not hold are missing; companies have no GDPR delete.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_HUBSPOT_TOKEN } from '../../../src/emulators/hubspot/index.js';
import { useHubSpot } from './hubspot-fixture.js';

const setup = useHubSpot();

describe('HubSpot sink: erase', () => {
  it('gdpr-delete removes the contact for good and from its list; archive keeps it restorable', async () => {
    const { emu, sink } = await setup();
    const table = emu.state.table('contacts');
    const emails = ['a@x.io', 'b@x.io', 'c@x.io'];
    const ids = emails.map((email) => table.put(emu.state.newId(), { email }, new Date().toISOString()).id);
    const listId = await sink.lists.ensureList('contacts', 'People');
    await sink.lists.changeMembers(listId, ids, []);
    const target = { object: 'contacts', matchField: 'email', fields: [] };

    expect(await sink.erase(target, ['a@x.io', 'nobody@x.io'], 'gdpr-delete')).toEqual({
      archived: ['a@x.io'],
      missing: ['nobody@x.io'],
      refused: [],
    });
    expect(emu.stats.byRoute.gdprDelete).toBe(1);
    expect(table.objects.has(ids[0]!)).toBe(false);
    expect(table.archived.has(ids[0]!)).toBe(false);
    expect(emu.state.gdprDeleted.has(ids[0]!)).toBe(true);
    expect(await sink.lists.members(listId)).not.toContain(ids[0]);

    expect(await sink.erase(target, ['b@x.io'], 'archive')).toEqual({ archived: ['b@x.io'], missing: [], refused: [] });
    expect(table.archived.has(ids[1]!)).toBe(true);
    expect(emu.stats.byRoute.gdprDelete).toBe(1);

    await expect(sink.erase({ ...target, object: 'companies' }, ['x.io'], 'gdpr-delete')).rejects.toMatchObject({
      code: 'crm_schema_mismatch',
    });
  });

  it(
    'the emulator answers as HubSpot documents: 204, an unknown email blocklisted, an unknown id 404, a bad body ' +
      '400',
    async () => {
      const { emu } = await setup();
      const post = (body: unknown): Promise<Response> =>
        fetch(`${emu.url}/crm/v3/objects/contacts/gdpr-delete`, {
          method: 'POST',
          headers: { authorization: `Bearer ${DEFAULT_HUBSPOT_TOKEN}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      const table = emu.state.table('contacts');
      table.put(emu.state.newId(), { email: 'known@x.io' }, new Date().toISOString());
      expect((await post({ objectId: 'known@x.io', idProperty: 'email' })).status).toBe(204);
      expect(emu.state.find('contacts', 'email', 'known@x.io')).toBeUndefined();
      expect((await post({ objectId: 'Gone@X.io', idProperty: 'email' })).status).toBe(204);
      expect(emu.state.gdprBlocklist.has('gone@x.io')).toBe(true);
      expect((await post({ objectId: '999999' })).status).toBe(404);
      expect((await post({ idProperty: 'email' })).status).toBe(400);
      expect((await post({ objectId: 'x', idProperty: 'firstname' })).status).toBe(400);
    },
  );
});
