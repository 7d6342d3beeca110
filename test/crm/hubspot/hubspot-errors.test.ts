import { describe, expect, it } from 'vitest';
import type { ObjectTarget } from '../../../src/crm/index.js';
import { useHubSpot } from './hubspot-fixture.js';

const TOKEN = 'pat-na1-secret-token-value';
const contacts: ObjectTarget = { object: 'contacts', matchField: 'prospect_sync_id', fields: ['email', 'firstname'] };
const flat = { ...contacts, associate: undefined };

const open = useHubSpot();
const setup = () => open({ accessToken: TOKEN });

const people = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    key: `p_${i}`,
    properties: { email: `person${i}@example.com`, firstname: `Vorname${i}` },
  }));

/** Every refusal must be one of our typed errors, with no token and no record value anywhere in it. */
function expectClean(err: unknown, code: string): void {
  expect(err).toMatchObject({ code });
  const text = JSON.stringify({ err, message: (err as Error).message, stack: (err as Error).stack });
  expect(text).not.toContain(TOKEN);
  expect(text).not.toMatch(/person\d+@example\.com|Vorname\d/);
}

describe('HubSpot refusals come out typed', () => {
  it('403 missing scopes on property, read and upsert calls → crm_auth_failed naming the scope', async () => {
    const { emu, sink } = await setup();
    emu.faults.missingScopes = new Set(['crm.schemas.contacts.read']);
    const onPrepare = await sink.prepare(contacts).catch((e: unknown) => e);
    expectClean(onPrepare, 'crm_auth_failed');
    expect((onPrepare as Error).message).toMatch(/403.*crm\.schemas\.contacts\.read/);

    emu.faults.missingScopes = new Set();
    await sink.prepare(contacts);
    emu.faults.missingScopes = new Set(['crm.objects.contacts.read', 'crm.objects.contacts.write']);
    expectClean(await sink.readCurrent(contacts, ['p_1'], ['firstname']).catch((e: unknown) => e), 'crm_auth_failed');
    expectClean(await sink.upsert(flat, people(10)).catch((e: unknown) => e), 'crm_auth_failed');
    expect(emu.stats.byRoute.upsert).toBe(1); // a 403 is not split record by record
  });

  it('an unknown object or an unknown match property → crm_schema_mismatch', async () => {
    const { sink } = await setup();
    expectClean(await sink.prepare({ ...contacts, object: 'deals' }).catch((e: unknown) => e), 'crm_schema_mismatch');
    // reading by a match property not created yet finds nothing (a fresh portal); writing by it is a schema error
    expect((await sink.readCurrent({ ...contacts, matchField: 'no_such_id' }, ['p_1'], ['firstname'])).size).toBe(0);
    const err = await sink
      .upsert({ ...contacts, matchField: 'no_such_id', associate: undefined }, [
        { key: 'p_1', properties: { firstname: 'A' } },
      ])
      .catch((e: unknown) => e);
    expectClean(err, 'crm_schema_mismatch');
    expect((err as Error).message).toMatch(/no_such_id/);
  });

  it("any other 4xx on a property call → crm_request_failed with HubSpot's category", async () => {
    const { sink } = await setup();
    // contacts has one unique property (email); HubSpot allows 10 per object.
    for (let i = 0; i < 9; i++) await sink.prepare({ ...contacts, matchField: `unique_${i}` });
    const err = await sink.prepare({ ...contacts, matchField: 'unique_10' }).catch((e: unknown) => e);
    expectClean(err, 'crm_request_failed');
    expect(err).toMatchObject({ details: { status: 400, category: 'VALIDATION_ERROR' } });
  });
});

describe('HubSpot batch refusals for schema reasons stop at once', () => {
  it(
    'a property deleted after prepare: one call, crm_schema_mismatch naming it, nothing rejected or ' + 'split',
    async () => {
      const { emu, sink } = await setup();
      await sink.prepare(contacts);
      emu.state.tables.get('contacts')?.properties.delete('firstname');
      const err = await sink.upsert(flat, people(100)).catch((e: unknown) => e);
      expectClean(err, 'crm_schema_mismatch');
      expect((err as Error).message).toMatch(/firstname/);
      expect(emu.stats.byRoute.upsert).toBe(1);
    },
  );

  it('the match (id) property deleted after prepare: one call, crm_schema_mismatch', async () => {
    const { emu, sink } = await setup();
    await sink.prepare(contacts);
    emu.state.tables.get('contacts')?.properties.delete('prospect_sync_id');
    expectClean(await sink.upsert(flat, people(40)).catch((e: unknown) => e), 'crm_schema_mismatch');
    expect(emu.stats.byRoute.upsert).toBe(1);
  });
});

describe('HubSpot links', () => {
  const companies: ObjectTarget = { object: 'companies', matchField: 'prospect_sync_id', fields: ['name'] };
  const linked: ObjectTarget = { ...contacts, associate: { object: 'companies', matchField: 'prospect_sync_id' } };

  it(
    'a link error naming the company id (company deleted, id cached) is attributed, and the cached id is ' + 'dropped',
    async () => {
      const { emu, sink } = await setup();
      await sink.prepare(companies);
      await sink.prepare(linked);
      await sink.upsert(companies, [{ key: 'c_1', properties: { name: 'Acme' } }]);
      const person = { key: 'p_1', properties: { firstname: 'Ana' }, companyKey: 'c_1' };
      expect((await sink.upsert(linked, [person]))[0]).not.toHaveProperty('linkError'); // company id now cached

      const table = emu.state.tables.get('companies');
      table?.remove(emu.state.find('companies', 'prospect_sync_id', 'c_1')?.id ?? '');
      const [afterDelete] = await sink.upsert(linked, [person]);
      expect(afterDelete).toMatchObject({
        status: 'updated',
        linkError: expect.stringMatching(/OBJECT_NOT_FOUND/) as unknown,
      });

      // The company comes back under a new id: the sink must look it up again, not reuse the stale one.
      await sink.upsert(companies, [{ key: 'c_1', properties: { name: 'Acme again' } }]);
      const [relinked] = await sink.upsert(linked, [person]);
      expect(relinked).not.toHaveProperty('linkError');
      const newId = emu.state.find('companies', 'prospect_sync_id', 'c_1')?.id;
      expect(emu.state.associations.at(-1)).toMatchObject({ toId: newId, typeId: 1 });
    },
  );
});
