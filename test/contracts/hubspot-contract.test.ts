/**
 * The contract check itself (issue 33, item 4): a HubSpot sink session through the real @hubspot/api-client against
 * the emulator conforms to HubSpot's published specs on both sides, and a request or an answer with a field renamed
 * does not. What the specs cannot say (a date at midnight UTC, 100 inputs, unique ids) the emulator's own tests
 * check, naming HubSpot's docs: test/emulators/hubspot/hubspot-emulator.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { compileFieldMapping } from '../../src/crm/field-mapping.js';
import { onHubSpotExchange, type HubSpotExchange } from '../../src/emulators/hubspot/index.js';
import { useHubSpot } from '../crm/hubspot/hubspot-fixture.js';
import { checkExchange } from './hubspot-contract.js';

const setup = useHubSpot();
let stop: (() => void) | undefined;
afterEach(() => stop?.());

function record(): HubSpotExchange[] {
  const seen: HubSpotExchange[] = [];
  stop = onHubSpotExchange((e) => seen.push(e));
  return seen;
}

const COMPANIES = { object: 'companies', matchField: 'prospect_sync_id', fields: ['name', 'domain'] };
const CONTACTS = {
  object: 'contacts',
  matchField: 'prospect_sync_id',
  fields: ['firstname', 'email'],
  associate: { object: 'companies', matchField: 'prospect_sync_id' },
};

async function session(): Promise<HubSpotExchange[]> {
  const seen = record();
  const { sink } = await setup();
  await sink.identity();
  const mapping = compileFieldMapping(
    { matchOn: { field: 'prospect_sync_id', from: 'id' }, fields: { name: 'name', domain: 'domain' } },
    { object: 'companies' },
  );
  await sink.prepare(COMPANIES);
  await sink.preflight(mapping);
  await sink.upsert(COMPANIES, [
    { key: 'c1', properties: { name: 'Acme', domain: 'acme.io' } },
    { key: 'c2', properties: { name: 'Beta', domain: 'beta.io' } },
  ]);
  await sink.prepare(CONTACTS);
  const people = await sink.upsert(CONTACTS, [
    { key: 'p1', companyKey: 'c1', properties: { firstname: 'Ada', email: 'ada@acme.io' } },
    { key: 'p2', companyKey: 'c2', properties: { firstname: 'Bo', email: 'not-an-email' } },
  ]);
  expect(people.map((o) => o.status)).toEqual(['created', 'rejected']);
  await sink.readCurrent(COMPANIES, ['c1', 'c9'], ['name']);
  const list = await sink.lists.ensureList('companies', 'ICP');
  const ids = await sink.lists.recordIds('companies', 'prospect_sync_id', ['c1', 'c2']);
  await sink.lists.changeMembers(list, [...ids.values()], []);
  await sink.lists.members(list);
  await sink.archive(COMPANIES, ['c2']);
  return seen;
}

describe('HubSpot contract (published OpenAPI specs)', () => {
  it('every request of a sink session and every answer of the emulator conforms', async () => {
    const seen = await session();
    const operations = new Set(seen.map((e) => `${e.method} ${e.path.replace(/\/(companies|contacts)\//g, '/{t}/')}`));
    expect(operations.size).toBeGreaterThanOrEqual(10);
    expect(seen.flatMap(checkExchange)).toEqual([]);
  });

  it('a request field renamed is refused: inputs[].properties sent as props', async () => {
    const seen = record();
    const { emu } = await setup();
    const res = await fetch(`${emu.url}/crm/v3/objects/companies/batch/upsert`, {
      method: 'POST',
      headers: { authorization: 'Bearer hubspot-emulator-token', 'content-type': 'application/json' },
      body: JSON.stringify({ inputs: [{ id: 'x1', idProperty: 'hs_object_id', props: { name: 'Acme' } }] }),
    });
    await res.arrayBuffer();
    expect(seen).toHaveLength(1);
    expect(checkExchange(seen[0]!)).toEqual([
      {
        operation: 'POST /crm/v3/objects/companies/batch/upsert',
        side: 'request',
        status: res.status,
        problems: ["/inputs/0 must have required property 'properties'"],
      },
    ]);
  });

  it('an answer with a field renamed is refused: results sent as records', async () => {
    const seen = await session();
    const upsert = seen.find((e) => e.path.endsWith('/batch/upsert') && e.status === 200)!;
    const { results, ...rest } = upsert.responseBody as { results: unknown[] };
    const renamed = { ...upsert, responseBody: { ...rest, records: results } };
    expect(checkExchange(renamed)).toEqual([
      expect.objectContaining({ side: 'response', problems: ["/ must have required property 'results'"] }),
    ]);
  });
});
