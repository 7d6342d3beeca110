import { Client } from '@hubspot/api-client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  DEFAULT_HUBSPOT_TOKEN,
  startHubSpotEmulator,
  type HubSpotEmulator,
} from '../../../src/emulators/hubspot/index.js';

let emu: HubSpotEmulator;

async function post(
  path: string,
  body: unknown,
  token = DEFAULT_HUBSPOT_TOKEN,
): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const res = await fetch(`${emu.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return {
    status: res.status,
    body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>),
    headers: res.headers,
  };
}

const upsertInput = (id: string, properties: Record<string, string> = {}, idProperty = 'email') => ({
  id,
  idProperty,
  properties,
});

beforeEach(async () => {
  emu = await startHubSpotEmulator({ limits: { perTenSeconds: 1000 } });
});
afterEach(async () => emu.close());

describe('HubSpot emulator: auth and errors', () => {
  it('answers 401 with the HubSpot error body on a bad token, and does not count it', async () => {
    const res = await post('/crm/v3/objects/contacts/batch/upsert', { inputs: [] }, 'wrong');
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ status: 'error', category: 'INVALID_AUTHENTICATION' });
    expect(typeof res.body.correlationId).toBe('string');
    expect(emu.stats.requests).toBe(0);
  });

  // Rules HubSpot's docs state and its OpenAPI specs cannot: a batch takes at most 100 inputs (treated as the limit:
  // https://developers.hubspot.com/docs/guides/apps/api-usage/usage-details, "batch" requests), and a batch upsert's
  // ids (`idProperty` values) must be unique in the batch:
  // https://developers.hubspot.com/docs/api-reference/latest/crm/objects/contacts/batch/upsert-contacts
  it('refuses more than 100 inputs and duplicate ids with 400 VALIDATION_ERROR', async () => {
    const many = await post('/crm/v3/objects/contacts/batch/upsert', {
      inputs: Array.from({ length: 101 }, (_, i) => upsertInput(`a${i}@x.io`)),
    });
    expect(many.status).toBe(400);
    expect(many.body).toMatchObject({ status: 'error', category: 'VALIDATION_ERROR' });
    const dup = await post('/crm/v3/objects/contacts/batch/upsert', {
      inputs: [upsertInput('a@x.io'), upsertInput('a@x.io')],
    });
    expect(dup.status).toBe(400);
    expect(String(dup.body.message)).toMatch(/Duplicate IDs/);
    expect(emu.state.count('contacts')).toBe(0);
  });

  it('upserts only by a unique property', async () => {
    const res = await post('/crm/v3/objects/companies/batch/upsert', {
      inputs: [upsertInput('acme.com', {}, 'domain')],
    });
    expect(res.status).toBe(400);
    expect(String(res.body.message)).toMatch(/non-unique/);
  });

  it('fails the whole batch on an unknown property (PROPERTY_DOESNT_EXIST)', async () => {
    const res = await post('/crm/v3/objects/contacts/batch/upsert', {
      inputs: [upsertInput('a@x.io', { firstname: 'A' }), upsertInput('b@x.io', { nope: '1' })],
    });
    expect(res.status).toBe(400);
    expect(String(res.body.message)).toMatch(/PROPERTY_DOESNT_EXIST/);
    expect(String(res.body.message)).toMatch(/Property \\"nope\\" does not exist/);
    // As HubSpot: category only, the code lives in the message's JSON list.
    expect(res.body).toMatchObject({ status: 'error', category: 'VALIDATION_ERROR' });
    expect(res.body).not.toHaveProperty('subCategory');
    expect(emu.state.count('contacts')).toBe(0);
  });

  it('answers 403 MISSING_SCOPES naming the scope when the app lacks it', async () => {
    emu.faults.missingScopes = new Set(['crm.objects.contacts.write']);
    const res = await post('/crm/v3/objects/contacts/batch/upsert', { inputs: [upsertInput('a@x.io')] });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({
      status: 'error',
      category: 'MISSING_SCOPES',
      errors: [{ context: { requiredGranularScopes: ['crm.objects.contacts.write'] } }],
    });
    expect(
      (
        await post('/crm/v3/objects/contacts/batch/read', {
          inputs: [{ id: 'a@x.io' }],
          idProperty: 'email',
          properties: [],
        })
      ).status,
    ).toBe(207); // read scope kept: not found, not forbidden
    expect(emu.state.count('contacts')).toBe(0);
  });

  it('answers 207 with per-record errors for an invalid email and writes the others', async () => {
    const create = await post('/crm/v3/properties/contacts', {
      name: 'ext_id',
      label: 'Ext',
      type: 'string',
      fieldType: 'text',
      groupName: 'g',
      hasUniqueValue: true,
    });
    expect(create.status).toBe(201);
    const res = await post('/crm/v3/objects/contacts/batch/upsert', {
      inputs: [
        upsertInput('p1', { email: 'good@x.io' }, 'ext_id'),
        upsertInput('p2', { email: 'not-an-email' }, 'ext_id'),
      ],
    });
    expect(res.status).toBe(207);
    expect(res.body.numErrors).toBe(1);
    expect((res.body.errors as { context: { ids: string[] } }[])[0]?.context.ids).toEqual(['p2']);
    expect(emu.state.find('contacts', 'ext_id', 'p1')?.properties.email).toBe('good@x.io');
    expect(emu.state.find('contacts', 'ext_id', 'p2')).toBeUndefined();
  });

  // https://developers.hubspot.com/docs/faq/how-should-timestamps-be-formatted-for-hubspots-apis: "Date properties
  // will only store the date, and must be set to midnight UTC ... If you try to set a value that is not midnight UTC,
  // you will receive an error"; datetime properties take any instant.
  it('a date property takes midnight UTC only (INVALID_DATE "... not midnight!"); a datetime any instant', async () => {
    for (const [name, type] of [
      ['left_on', 'date'],
      ['left_at', 'datetime'],
    ] as const) {
      const res = await post('/crm/v3/properties/contacts', {
        name,
        label: name,
        type,
        fieldType: type,
        groupName: 'g',
      });
      expect(res.status).toBe(201);
    }
    const res = await post('/crm/v3/objects/contacts/batch/upsert', {
      inputs: [
        upsertInput('day@x.io', { left_on: '2026-11-27', left_at: '2026-11-27T19:37:01.883Z' }),
        upsertInput('ms@x.io', { left_on: String(Date.UTC(2026, 10, 27)) }),
        upsertInput('iso@x.io', { left_on: '2026-11-27T19:37:01.883Z' }),
        upsertInput('bad@x.io', { left_on: 'soon' }),
      ],
    });
    expect(res.status).toBe(207);
    const errors = res.body.errors as { message: string; context: { ids: string[] }; errors: { code: string }[] }[];
    expect(errors.map((e) => e.context.ids[0])).toEqual(['iso@x.io', 'bad@x.io']);
    expect(errors[0]?.errors[0]?.code).toBe('INVALID_DATE');
    expect(errors[0]?.message).toContain(
      `[{"isValid":false,"message":"${Date.parse('2026-11-27T19:37:01.883Z')} is at 19:37:1.883 UTC, not midnight!",` +
        '"error":"INVALID_DATE","name":"left_on"}]',
    );
    expect(emu.state.find('contacts', 'email', 'day@x.io')?.properties).toMatchObject({
      left_on: '2026-11-27',
      left_at: '2026-11-27T19:37:01.883Z',
    });
    expect(emu.state.find('contacts', 'email', 'ms@x.io')).toBeDefined();
    expect(emu.state.find('contacts', 'email', 'iso@x.io')).toBeUndefined();
  });

  it('stores strings: numbers are stringified, objects refused', async () => {
    const ok = await post('/crm/v3/objects/contacts/batch/upsert', {
      inputs: [{ id: 'n@x.io', idProperty: 'email', properties: { firstname: 42 } }],
    });
    expect(ok.status).toBe(200);
    expect(emu.state.find('contacts', 'email', 'n@x.io')?.properties.firstname).toBe('42');
    const bad = await post('/crm/v3/objects/contacts/batch/upsert', {
      inputs: [{ id: 'o@x.io', idProperty: 'email', properties: { firstname: { a: 1 } } }],
    });
    expect(bad.status).toBe(400);
  });

  it(
    'batch create answers 201 and 409 on an existing unique value; read 207 for unknown ids; archive ' + '204',
    async () => {
      const created = await post('/crm/v3/objects/contacts/batch/create', {
        inputs: [{ properties: { email: 'c@x.io' } }],
      });
      expect(created.status).toBe(201);
      const conflict = await post('/crm/v3/objects/contacts/batch/create', {
        inputs: [{ properties: { email: 'c@x.io' } }],
      });
      expect(conflict.status).toBe(409);
      expect(String(conflict.body.message)).toMatch(/already exists. Existing ID: \d+/);
      const id = emu.state.find('contacts', 'email', 'c@x.io')?.id ?? '';
      const read = await post('/crm/v3/objects/contacts/batch/read', {
        inputs: [{ id }, { id: '999999' }],
        properties: ['email'],
        propertiesWithHistory: [],
      });
      expect(read.status).toBe(207);
      expect((read.body.results as unknown[]).length).toBe(1);
      const archived = await post('/crm/v3/objects/contacts/batch/archive', { inputs: [{ id }] });
      expect(archived.status).toBe(204);
      expect(emu.state.count('contacts')).toBe(0);
    },
  );

  it('refuses a second property of the same name (409) and keeps hasUniqueValue', async () => {
    const body = {
      name: 'ext_id',
      label: 'Ext',
      type: 'string',
      fieldType: 'text',
      groupName: 'g',
      hasUniqueValue: true,
    };
    expect((await post('/crm/v3/properties/companies', body)).status).toBe(201);
    expect((await post('/crm/v3/properties/companies', body)).status).toBe(409);
    expect((await post('/crm/v3/properties/companies', { name: 'x' })).status).toBe(400);
    expect(emu.state.tables.get('companies')?.properties.get('ext_id')?.hasUniqueValue).toBe(true);
  });

  it('links contacts to companies (v4): 201, 207 for a missing object, 400 for an unknown type id', async () => {
    await post('/crm/v3/objects/contacts/batch/upsert', { inputs: [upsertInput('l@x.io')] });
    await post('/crm/v3/objects/companies/batch/create', { inputs: [{ properties: { name: 'Acme' } }] });
    const contactId = emu.state.find('contacts', 'email', 'l@x.io')?.id ?? '';
    const companyId = [...(emu.state.tables.get('companies')?.objects.keys() ?? [])][0] ?? '';
    const types = [{ associationCategory: 'HUBSPOT_DEFINED', associationTypeId: 279 }];
    const ok = await post('/crm/v4/associations/contacts/companies/batch/create', {
      inputs: [{ from: { id: contactId }, to: { id: companyId }, types }],
    });
    expect(ok.status).toBe(201);
    const partial = await post('/crm/v4/associations/contacts/companies/batch/create', {
      inputs: [
        { from: { id: contactId }, to: { id: companyId }, types },
        { from: { id: contactId }, to: { id: '424242' }, types },
      ],
    });
    expect(partial.status).toBe(207);
    const badType = await post('/crm/v4/associations/contacts/companies/batch/create', {
      inputs: [
        {
          from: { id: contactId },
          to: { id: companyId },
          types: [{ associationCategory: 'HUBSPOT_DEFINED', associationTypeId: 2 }],
        },
      ],
    });
    expect(badType.status).toBe(400);
    const def = await post('/crm/v4/associations/contacts/companies/batch/associate/default', {
      inputs: [{ from: { id: contactId }, to: { id: companyId } }],
    });
    expect(def.status).toBe(200);
    expect(emu.state.associations).toHaveLength(1);
  });
});

describe('HubSpot emulator: limits and faults', () => {
  it('sends rate headers and the documented 429 bodies for the rolling window and the daily limit', async () => {
    await emu.close();
    emu = await startHubSpotEmulator({ limits: { perTenSeconds: 3, windowMs: 1000, daily: 5 } });
    const path = '/crm/v3/objects/contacts/batch/read';
    const body = { inputs: [], properties: [] };
    const first = await post(path, body);
    expect(first.headers.get('x-hubspot-ratelimit-max')).toBe('3');
    expect(first.headers.get('x-hubspot-ratelimit-remaining')).toBe('2');
    expect(first.headers.get('x-hubspot-ratelimit-interval-milliseconds')).toBe('1000');
    expect(first.headers.get('x-hubspot-ratelimit-daily-remaining')).toBe('4');
    await post(path, body);
    await post(path, body);
    const limited = await post(path, body);
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({
      status: 'error',
      errorType: 'RATE_LIMIT',
      policyName: 'TEN_SECONDLY_ROLLING',
      message: 'You have reached your ten_secondly_rolling limit.',
    });
    await new Promise((r) => setTimeout(r, 1050));
    expect((await post(path, body)).status).toBe(200);
    expect((await post(path, body)).status).toBe(200);
    const daily = await post(path, body);
    expect(daily.status).toBe(429);
    expect(daily.body).toMatchObject({ policyName: 'DAILY', errorType: 'RATE_LIMIT' });
    expect(emu.stats.throttled).toEqual({ TEN_SECONDLY_ROLLING: 1, DAILY: 1 });
  });

  it('injects 5xx and forced 429 on demand', async () => {
    emu.faults.fail5xxNext = 1;
    emu.faults.force429Next = 1;
    const body = { inputs: [], properties: [] };
    expect((await post('/crm/v3/objects/contacts/batch/read', body)).status).toBe(429);
    expect((await post('/crm/v3/objects/contacts/batch/read', body)).status).toBe(502);
    expect((await post('/crm/v3/objects/contacts/batch/read', body)).status).toBe(200);
  });
});

describe('HubSpot emulator with the real @hubspot/api-client', () => {
  it('the client resolves 200 and 207 answers and throws on 400', async () => {
    const client = new Client({ accessToken: DEFAULT_HUBSPOT_TOKEN, basePath: emu.url });
    const ok = await client.crm.contacts.batchApi.upsert({ inputs: [upsertInput('r@x.io', { firstname: 'Zoë 🚀' })] });
    expect(ok.results[0]?._new).toBe(true);
    expect(ok.results[0]?.properties.firstname).toBe('Zoë 🚀');
    const again = await client.crm.contacts.batchApi.upsert({ inputs: [upsertInput('r@x.io', { firstname: 'Zoë' })] });
    expect(again.results[0]?._new).toBe(false);
    expect(emu.state.count('contacts')).toBe(1);
    emu.faults.reject = { values: new Set(['poison']), mode: 'record' };
    const partial = await client.crm.contacts.batchApi.upsert({
      inputs: [upsertInput('s@x.io'), upsertInput('t@x.io', { firstname: 'poison' })],
    });
    expect('errors' in partial && partial.errors?.length).toBe(1);
    const err = await client.crm.contacts.batchApi
      .upsert({ inputs: [upsertInput('u@x.io'), upsertInput('u@x.io')] })
      .catch((e: unknown) => e);
    expect((err as { code: number }).code).toBe(400);
    const props = await client.crm.properties.coreApi.getAll('companies');
    expect(props.results.some((p) => p.name === 'domain' && p.hasUniqueValue !== true)).toBe(true);
  });
});

describe('HubSpot emulator: property metadata, as the real client reads it', () => {
  it('lists type, hasUniqueValue and modificationMetadata; read-only values are dropped from writes', async () => {
    const client = new Client({ accessToken: DEFAULT_HUBSPOT_TOKEN, basePath: emu.url });
    const created = await post('/crm/v3/properties/contacts', {
      name: 'ext_id',
      label: 'Ext',
      type: 'string',
      fieldType: 'text',
      groupName: 'g',
      hasUniqueValue: true,
    });
    expect(created.status).toBe(201);
    const listed = new Map((await client.crm.properties.coreApi.getAll('contacts')).results.map((p) => [p.name, p]));
    expect(listed.get('hs_object_id')).toMatchObject({
      type: 'number',
      hasUniqueValue: false,
      modificationMetadata: { readOnlyValue: true },
    });
    expect(listed.get('email')).toMatchObject({
      type: 'string',
      hasUniqueValue: true,
      modificationMetadata: { readOnlyValue: false },
    });
    expect(listed.get('hs_email_optout')).toMatchObject({
      type: 'bool',
      modificationMetadata: { readOnlyValue: false },
    });
    expect(listed.get('ext_id')).toMatchObject({
      hasUniqueValue: true,
      modificationMetadata: { archivable: true, readOnlyDefinition: false, readOnlyValue: false },
    });
    const up = await post('/crm/v3/objects/contacts/batch/upsert', {
      inputs: [upsertInput('r@x.io', { firstname: 'R', hs_object_id: '123' })],
    });
    expect(up.status).toBe(200);
    const stored = emu.state.find('contacts', 'email', 'r@x.io');
    expect(stored?.properties.firstname).toBe('R');
    expect(stored?.properties.hs_object_id).not.toBe('123');
  });
});

describe('HubSpot emulator: CRM search', () => {
  it(
    'filters (EQ on a bool, GT on hs_object_id), sorts by {propertyName, direction}, pages; refuses the ' + 'rest',
    async () => {
      const table = emu.state.table('contacts');
      const now = new Date().toISOString();
      const ids: string[] = [];
      for (let n = 0; n < 5; n++) {
        const id = emu.state.newId();
        ids.push(id);
        table.put(id, { email: `p${n}@x.example`, hs_email_optout: n % 2 === 0 ? 'true' : 'false' }, now);
      }
      const search = (body: Record<string, unknown>) => post('/crm/v3/objects/contacts/search', body);
      const optedOut = (after: string) => ({
        filterGroups: [
          {
            filters: [
              { propertyName: 'hs_email_optout', operator: 'EQ', value: 'true' },
              { propertyName: 'hs_object_id', operator: 'GT', value: after },
            ],
          },
        ],
        sorts: [{ propertyName: 'hs_object_id', direction: 'ASCENDING' }],
        properties: ['email'],
        limit: 2,
        after: '0',
      });
      const first = await search(optedOut('0'));
      expect(first.status).toBe(200);
      const page = first.body.results as { id: string; properties: Record<string, string> }[];
      expect(page.map((r) => r.id)).toEqual([ids[0], ids[2]]);
      expect(page[0]!.properties.email).toBe('p0@x.example');
      expect(first.body).toMatchObject({ total: 3, paging: { next: { after: '2' } } });
      const rest = await search(optedOut(ids[2]!));
      expect((rest.body.results as { id: string }[]).map((r) => r.id)).toEqual([ids[4]]);
      expect(rest.body.paging).toBeUndefined();
      // The spec's string form is taken, but the guide never says it sorts: the order is then not the ids'.
      const unsorted = await search({ ...optedOut('0'), sorts: ['hs_object_id'], limit: 3 });
      const unsortedIds = (unsorted.body.results as { id: string }[]).map((r) => r.id);
      expect(unsortedIds.toSorted()).toEqual([ids[0], ids[2], ids[4]].toSorted());
      expect(unsortedIds).not.toEqual([ids[0], ids[2], ids[4]]);
      for (const bad of [
        { ...optedOut('0'), limit: 201 },
        { ...optedOut('0'), after: '9999' },
        { ...optedOut('0'), sorts: ['no_such_property'] },
        { filterGroups: [{ filters: [{ propertyName: 'no_such_property', operator: 'EQ', value: 'x' }] }] },
      ]) {
        const r = await search(bad);
        expect(r.status, JSON.stringify(bad)).toBe(400);
        expect(r.body.category).toBe('VALIDATION_ERROR');
      }
    },
  );
});
