import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { parse } from 'csv-parse/sync';
import {
  startSalesforceEmulator,
  type SalesforceEmulator,
  type SalesforceEmulatorOptions,
} from '../../../src/emulators/salesforce/salesforce-emulator.js';
import { defaultSchema, type SfField, type SfSchema } from '../../../src/emulators/salesforce/salesforce-schema.js';

const CLIENT = { clientId: 'cid', clientSecret: 'csecret' };
const V = '/services/data/v62.0';
let sf: SalesforceEmulator;
let token: string;

async function getToken(form: Record<string, string>): Promise<Response> {
  return fetch(`${sf.url}/services/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read free-form wire JSON
type WireJson = any;

async function api(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: WireJson; text: string; headers: Headers }> {
  const res = await fetch(`${sf.url}${path.startsWith('/services') ? path : V + path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined && typeof body !== 'string' ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, json, text, headers: res.headers };
}

const account = (key: string, extra: Record<string, unknown> = {}) => ({
  attributes: { type: 'Account' },
  Prospect_Sync_Id__c: key,
  Name: `Co ${key}`,
  ...extra,
});

/** A fresh emulator (closing the current one) and a token for it. */
async function restart(options: Partial<SalesforceEmulatorOptions> = {}): Promise<void> {
  await sf.close();
  await startWith(options);
}

async function startWith(options: Partial<SalesforceEmulatorOptions> = {}): Promise<void> {
  sf = await startSalesforceEmulator({ clients: [CLIENT], apiDailyLimit: 1000, bulkProcessingDelayMs: 1, ...options });
  token = (
    (await (
      await getToken({
        grant_type: 'client_credentials',
        client_id: CLIENT.clientId,
        client_secret: CLIENT.clientSecret,
      })
    ).json()) as { access_token: string }
  ).access_token;
}

function withAccountField(field: SfField): SfSchema {
  const schema = defaultSchema();
  schema.Account!.fields.push(field);
  return schema;
}

beforeEach(async () => startWith());
afterEach(async () => sf.close());

describe('oauth token endpoint', () => {
  test('issues a token whose id is shaped .../id/<org>/<user>', async () => {
    const body = (await (
      await getToken({ grant_type: 'client_credentials', client_id: 'cid', client_secret: 'csecret' })
    ).json()) as Record<string, string>;
    expect(body.instance_url).toBe(sf.url);
    expect(body.id).toMatch(/\/id\/00D\w{15}\/005\w{15}$/);
    expect(body.token_type).toBe('Bearer');
  });
  test('refuses wrong secrets, other grants and non-form bodies with 400 {error, error_description}', async () => {
    const bad = await getToken({ grant_type: 'client_credentials', client_id: 'cid', client_secret: 'nope' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: 'invalid_client' });
    const grant = await getToken({ grant_type: 'password', client_id: 'cid', client_secret: 'csecret' });
    expect((await grant.json()) as object).toMatchObject({ error: 'unsupported_grant_type' });
    const json = await fetch(`${sf.url}/services/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(json.status).toBe(400);
  });
});

describe('REST basics', () => {
  test('rejects old and malformed API versions', async () => {
    expect((await api('GET', '/services/data/v45.0/sobjects/Account/describe')).status).toBe(400);
    expect((await api('GET', '/services/data/vlatest/sobjects/Account/describe')).status).toBe(404);
    expect((await api('GET', '/services/data/v62/sobjects/Account/describe')).status).toBe(404);
  });
  test('401 INVALID_SESSION_ID as an array body for unknown and expired tokens', async () => {
    const unknown = await api('GET', '/sobjects/Account/describe', undefined, { authorization: 'Bearer nope' });
    expect(unknown.status).toBe(401);
    expect(unknown.json).toEqual([{ message: 'Session expired or invalid', errorCode: 'INVALID_SESSION_ID' }]);
    expect((await api('GET', '/sobjects/Account/describe')).status).toBe(200);
    sf.expireAllSessions();
    expect((await api('GET', '/sobjects/Account/describe')).json[0].errorCode).toBe('INVALID_SESSION_ID');
  });
  test('Sforce-Limit-Info counts every call and the daily limit answers 403 REQUEST_LIMIT_EXCEEDED', async () => {
    await restart({ apiDailyLimit: 3 });
    const seen: string[] = [];
    for (let i = 0; i < 3; i++)
      seen.push((await api('GET', '/sobjects/Account/describe')).headers.get('sforce-limit-info')!);
    expect(seen).toEqual(['api-usage=1/3', 'api-usage=2/3', 'api-usage=3/3']);
    const over = await api('GET', '/sobjects/Account/describe');
    expect(over.status).toBe(403);
    expect(over.json[0].errorCode).toBe('REQUEST_LIMIT_EXCEEDED');
    expect(over.headers.get('sforce-limit-info')).toBe('api-usage=3/3');
  });
  test('describe lists fields with externalId, unique, type and relationships', async () => {
    const d = await api('GET', '/sobjects/Contact/describe');
    const ext = d.json.fields.find((f: { name: string }) => f.name === 'Prospect_Sync_Id__c');
    expect(ext).toMatchObject({ externalId: true, unique: true, type: 'string' });
    expect(d.json.fields.find((f: { name: string }) => f.name === 'AccountId')).toMatchObject({
      referenceTo: ['Account'],
      relationshipName: 'Account',
    });
    expect((await api('GET', '/sobjects/Nope__c/describe')).status).toBe(404);
  });
});

describe('single upsert by external id', () => {
  test('201 created, then 200 updated, 404 for an unknown external id field', async () => {
    const first = await api('PATCH', '/sobjects/Account/Prospect_Sync_Id__c/a%201', { Name: 'A' });
    expect(first.status).toBe(201);
    expect(first.json).toMatchObject({ success: true, created: true, errors: [] });
    const second = await api('PATCH', '/sobjects/Account/Prospect_Sync_Id__c/a%201', { Name: 'B' });
    expect(second.status).toBe(200);
    expect(second.json).toMatchObject({ id: first.json.id, created: false });
    expect(sf.state.findBy('Account', 'Prospect_Sync_Id__c', 'a 1')[0]!.Name).toBe('B');
    expect((await api('PATCH', '/sobjects/Account/Nope__c/x', { Name: 'A' })).status).toBe(404);
    expect((await api('PATCH', '/sobjects/Account/Name/x', { Name: 'A' })).status).toBe(404);
  });
  test('300 when a non-unique external id matches several records; 400 with errorCode on validation', async () => {
    await restart({
      objects: withAccountField({ name: 'Legacy_Id__c', type: 'string', length: 50, externalId: true }),
    });
    await api('PATCH', '/sobjects/Account/Prospect_Sync_Id__c/one', { Name: 'A', Legacy_Id__c: 'L' });
    await api('PATCH', '/sobjects/Account/Prospect_Sync_Id__c/two', { Name: 'B', Legacy_Id__c: 'L' });
    expect((await api('PATCH', '/sobjects/Account/Legacy_Id__c/L', { Name: 'C' })).status).toBe(300);
    const missing = await api('PATCH', '/sobjects/Contact/Prospect_Sync_Id__c/p', { FirstName: 'x' });
    expect(missing.status).toBe(400);
    expect(missing.json[0]).toMatchObject({ errorCode: 'REQUIRED_FIELD_MISSING', fields: ['LastName'] });
  });
});

describe('sObject collections upsert', () => {
  const upsert = (records: unknown[], allOrNone = false, type = 'Account') =>
    api('PATCH', `/composite/sobjects/${type}/Prospect_Sync_Id__c`, { allOrNone, records });

  test('more than 200 records: 400 EXCEEDED_ID_LIMIT and nothing written', async () => {
    const res = await upsert(Array.from({ length: 201 }, (_, i) => account(`k${i}`)));
    expect(res.status).toBe(400);
    expect(res.json[0].errorCode).toBe('EXCEEDED_ID_LIMIT');
    expect(sf.state.all('Account')).toHaveLength(0);
    expect((await upsert(Array.from({ length: 200 }, (_, i) => account(`k${i}`)))).json).toHaveLength(200);
  });
  test('allOrNone false: ordered results, statusCode in errors, the good records land', async () => {
    const res = await upsert([
      account('a'),
      account('b', { Name: null }),
      account('c', { Website: 'x'.repeat(256) }),
      account('d', { NumberOfEmployees: 'many' }),
    ]);
    expect(res.status).toBe(200);
    expect(res.json.map((r: { success: boolean }) => r.success)).toEqual([true, false, false, false]);
    expect(res.json[1].errors[0]).toMatchObject({ statusCode: 'REQUIRED_FIELD_MISSING', fields: ['Name'] });
    expect(res.json[2].errors[0].statusCode).toBe('STRING_TOO_LONG');
    expect(res.json[3].errors[0].statusCode).toBe('INVALID_TYPE_ON_FIELD_IN_RECORD');
    expect(sf.state.all('Account').map((r) => r.Prospect_Sync_Id__c)).toEqual(['a']);
  });
  test(
    'allOrNone true: one failure rolls back the rest (ALL_OR_NONE_OPERATION_ROLLED_BACK), updates ' + 'included',
    async () => {
      await upsert([account('a', { Name: 'Before' })]);
      const res = await upsert([account('a', { Name: 'After' }), account('b'), account('c', { Name: null })], true);
      expect(res.status).toBe(200);
      expect(res.json[0].errors[0].statusCode).toBe('ALL_OR_NONE_OPERATION_ROLLED_BACK');
      expect(res.json[1].errors[0].statusCode).toBe('ALL_OR_NONE_OPERATION_ROLLED_BACK');
      expect(res.json[2].errors[0].statusCode).toBe('REQUIRED_FIELD_MISSING');
      expect(sf.state.all('Account').map((r) => [r.Prospect_Sync_Id__c, r.Name])).toEqual([['a', 'Before']]);
    },
  );
  test('unknown column fails the whole request; missing attributes.type too', async () => {
    expect((await upsert([account('a'), account('b', { Nope__c: 1 })])).json[0].errorCode).toBe('INVALID_FIELD');
    expect((await upsert([account('a'), { Prospect_Sync_Id__c: 'b', Name: 'x' }])).status).toBe(400);
    expect(sf.state.all('Account')).toHaveLength(0);
  });
  test(
    'relationship references link Contacts by the Account external id; unknown parents fail per ' + 'record',
    async () => {
      await upsert([account('acc')]);
      const res = await upsert(
        [
          {
            attributes: { type: 'Contact' },
            Prospect_Sync_Id__c: 'p1',
            LastName: 'One',
            Account: { Prospect_Sync_Id__c: 'acc' },
          },
          {
            attributes: { type: 'Contact' },
            Prospect_Sync_Id__c: 'p2',
            LastName: 'Two',
            Account: { Prospect_Sync_Id__c: 'ghost' },
          },
          { attributes: { type: 'Contact' }, Prospect_Sync_Id__c: 'p3', LastName: 'Three', Email: 'not-an-email' },
        ],
        false,
        'Contact',
      );
      expect(res.json[0].success).toBe(true);
      expect(sf.state.get('Contact', res.json[0].id)!.AccountId).toBe(
        sf.state.findBy('Account', 'Prospect_Sync_Id__c', 'acc')[0]!.Id,
      );
      expect(res.json[1].errors[0]).toMatchObject({ statusCode: 'INVALID_FIELD' });
      expect(res.json[1].errors[0].message).toMatch(/Foreign key external ID: ghost not found/);
      expect(res.json[2].errors[0].statusCode).toBe('INVALID_EMAIL_ADDRESS');
    },
  );
  test('Lead requires LastName and Company; the same external id twice in one call fails both', async () => {
    const res = await upsert(
      [
        { attributes: { type: 'Lead' }, Prospect_Sync_Id__c: 'l1', LastName: 'L' },
        { attributes: { type: 'Lead' }, Prospect_Sync_Id__c: 'l2', LastName: 'L', Company: 'C' },
        { attributes: { type: 'Lead' }, Prospect_Sync_Id__c: 'dup', LastName: 'L', Company: 'C' },
        { attributes: { type: 'Lead' }, Prospect_Sync_Id__c: 'DUP', LastName: 'L', Company: 'C' },
      ],
      false,
      'Lead',
    );
    expect(res.json[0].errors[0]).toMatchObject({ statusCode: 'REQUIRED_FIELD_MISSING', fields: ['Company'] });
    expect(res.json[1]).toMatchObject({ success: true, created: true });
    expect(res.json[2].errors[0].statusCode).toBe('DUPLICATE_EXTERNAL_ID');
    expect(res.json[3].errors[0].statusCode).toBe('DUPLICATE_EXTERNAL_ID');
  });
  test('DUPLICATE_VALUE on another unique field', async () => {
    await restart({ objects: withAccountField({ name: 'Domain__c', type: 'string', length: 100, unique: true }) });
    const res = await upsert([account('a', { Domain__c: 'x.com' }), account('b', { Domain__c: 'X.com' })]);
    expect(res.json[1].errors[0].statusCode).toBe('DUPLICATE_VALUE');
  });
  test('the reject switch refuses chosen records only', async () => {
    sf.faults.rejectKeys = ['b'];
    const res = await upsert([account('a'), account('b'), account('c')]);
    expect(res.json.map((r: { success: boolean }) => r.success)).toEqual([true, false, true]);
    expect(res.json[1].errors[0].statusCode).toBe('FIELD_CUSTOM_VALIDATION_EXCEPTION');
  });
});

describe('sObject collections delete', () => {
  const upsert = (records: unknown[]) =>
    api('PATCH', '/composite/sobjects/Account/Prospect_Sync_Id__c', { allOrNone: false, records });
  const destroy = (ids: string[], allOrNone = false) =>
    api('DELETE', `/composite/sobjects?ids=${ids.join(',')}&allOrNone=${allOrNone}`);

  test(
    'one result per id in order: deleted, already deleted, never known, malformed; gone from queries and ' + 'upserts',
    async () => {
      const [a, b] = ((await upsert([account('a'), account('b')])).json as { id: string }[]).map((r) => r.id);
      const res = await destroy([a!, a!.slice(0, 15).replace(/.$/, 'Z'), '001000000000ZZZAAA', 'nope']);
      expect(res.status).toBe(200);
      expect(res.json[0]).toEqual({ id: a, success: true, errors: [] });
      expect(res.json[1].errors[0].statusCode).toBe('INVALID_CROSS_REFERENCE_KEY');
      expect(res.json[2]).toEqual({
        success: false,
        errors: [{ statusCode: 'INVALID_CROSS_REFERENCE_KEY', message: 'invalid cross reference id', fields: [] }],
      });
      expect(res.json[3].errors[0].statusCode).toBe('MALFORMED_ID');
      expect((await destroy([a!])).json[0]).toEqual({
        success: false,
        errors: [{ statusCode: 'ENTITY_IS_DELETED', message: 'entity is deleted', fields: [] }],
      });
      expect(sf.state.recycleBin.has(a!)).toBe(true);
      const rows = await api(
        'GET',
        `/query?q=${encodeURIComponent("SELECT Id FROM Account WHERE Prospect_Sync_Id__c IN ('a','b')")}`,
      );
      expect(rows.json.records.map((r: { Id: string }) => r.Id)).toEqual([b]);
      // An upsert by the deleted record's external id creates a new record.
      const again = (await upsert([account('a')])).json[0];
      expect(again).toMatchObject({ success: true, created: true });
      expect(again.id).not.toBe(a);
    },
  );

  test('deleting an Account deletes its Contacts with it, as Salesforce does', async () => {
    const [a, b] = ((await upsert([account('a'), account('b')])).json as { id: string }[]).map((r) => r.id);
    const contact = (key: string, parent: string) => ({
      attributes: { type: 'Contact' },
      Prospect_Sync_Id__c: key,
      LastName: key,
      Account: { Prospect_Sync_Id__c: parent },
    });
    await api('PATCH', '/composite/sobjects/Contact/Prospect_Sync_Id__c', {
      allOrNone: false,
      records: [contact('p1', 'a'), contact('p2', 'a'), contact('p3', 'b')],
    });
    expect((await destroy([a!])).json[0]).toEqual({ id: a, success: true, errors: [] });
    expect(sf.state.all('Contact').map((r) => r.Prospect_Sync_Id__c)).toEqual(['p3']);
    expect([...sf.state.recycleBin.values()].map((d) => d.object).sort()).toEqual(['Account', 'Contact', 'Contact']);
    expect(sf.state.all('Account').map((r) => r.Id)).toEqual([b]);
  });

  test('more than 200 ids: 400 EXCEEDED_ID_LIMIT; allOrNone true rolls every delete back on one failure', async () => {
    const [a] = ((await upsert([account('a')])).json as { id: string }[]).map((r) => r.id);
    const tooMany = await destroy(Array.from({ length: 201 }, () => a!));
    expect(tooMany.status).toBe(400);
    expect(tooMany.json[0].errorCode).toBe('EXCEEDED_ID_LIMIT');
    const rolled = await destroy([a!, '001000000000ZZZAAA'], true);
    expect(rolled.json[0].errors[0].statusCode).toBe('ALL_OR_NONE_OPERATION_ROLLED_BACK');
    expect(sf.state.all('Account')).toHaveLength(1);
    expect((await api('DELETE', '/composite/sobjects')).status).toBe(400);
  });
});

describe('SOQL query', () => {
  test('SELECT ... WHERE Ext IN (...) with escaped quotes; everything else is MALFORMED_QUERY', async () => {
    await api('PATCH', `/composite/sobjects/Account/Prospect_Sync_Id__c`, {
      allOrNone: false,
      records: [account("o'hara"), account('b\\c'), account('z')],
    });
    const q = encodeURIComponent(
      "SELECT Id, Name, Prospect_Sync_Id__c FROM Account WHERE Prospect_Sync_Id__c IN ('o\\'hara', 'b\\\\c', " +
        "'missing')",
    );
    const res = await api('GET', `/query?q=${q}`);
    expect(res.status).toBe(200);
    expect(res.json.done).toBe(true);
    expect(res.json.records.map((r: { Prospect_Sync_Id__c: string }) => r.Prospect_Sync_Id__c).sort()).toEqual([
      'b\\c',
      "o'hara",
    ]);
    expect(res.json.records[0].attributes.type).toBe('Account');
    for (const bad of [
      "SELECT Id FROM Account WHERE Name LIKE 'a%'",
      "SELECT Id FROM Account WHERE Name IN ('a'",
      'SELECT COUNT() FROM Account',
      "SELECT Id FROM Account WHERE Name IN ('a' 'b')",
    ]) {
      const r = await api('GET', `/query?q=${encodeURIComponent(bad)}`);
      expect(r.status, bad).toBe(400);
      expect(r.json[0].errorCode, bad).toBe('MALFORMED_QUERY');
    }
    expect((await api('GET', `/query?q=${encodeURIComponent('SELECT Nope FROM Account')}`)).json[0].errorCode).toBe(
      'INVALID_FIELD',
    );
  });

  test('a checkbox compares with true / false (unset is false), and only a checkbox takes them', async () => {
    for (const [key, flags] of [
      ['a', { HasOptedOutOfEmail: true }],
      ['b', { HasOptedOutOfEmail: false, DoNotCall: true }],
      ['c', {}],
    ] as const)
      await api('PATCH', `/sobjects/Contact/Prospect_Sync_Id__c/${key}`, { LastName: key, ...flags });
    const keys = async (where: string): Promise<string[]> => {
      const q = encodeURIComponent(`SELECT Prospect_Sync_Id__c FROM Contact WHERE ${where}`);
      const res = await api('GET', `/query?q=${q}`);
      expect(res.status, where).toBe(200);
      return res.json.records.map((r: { Prospect_Sync_Id__c: string }) => r.Prospect_Sync_Id__c).sort();
    };
    expect(await keys('HasOptedOutOfEmail = true')).toEqual(['a']);
    expect(await keys('HasOptedOutOfEmail = FALSE')).toEqual(['b', 'c']);
    expect(await keys("DoNotCall = true AND LastName = 'b'")).toEqual(['b']);
    for (const bad of ["HasOptedOutOfEmail = 'true'", 'LastName = true']) {
      const q = encodeURIComponent(`SELECT Id FROM Contact WHERE ${bad}`);
      const r = await api('GET', `/query?q=${q}`);
      expect(r.status, bad).toBe(400);
      expect(r.json[0].errorCode, bad).toBe('INVALID_QUERY_FILTER_OPERATOR');
    }
  });
});

describe('Bulk API 2.0 ingest', () => {
  async function waitDone(id: string): Promise<{ state: string; numberRecordsFailed: number }> {
    for (;;) {
      const info = (await api('GET', `/jobs/ingest/${id}`)).json;
      if (info.state === 'JobComplete' || info.state === 'Failed') return info;
      await new Promise((r) => setTimeout(r, 5));
    }
  }
  test('open, upload CSV, close, complete; results CSV carry sf__ columns and the original values', async () => {
    await api('PATCH', `/composite/sobjects/Account/Prospect_Sync_Id__c`, {
      allOrNone: false,
      records: [account('acc')],
    });
    const job = await api('POST', '/jobs/ingest', {
      object: 'Contact',
      operation: 'upsert',
      externalIdFieldName: 'Prospect_Sync_Id__c',
      contentType: 'CSV',
      lineEnding: 'LF',
    });
    expect(job.json).toMatchObject({
      operation: 'upsert',
      object: 'Contact',
      state: 'Open',
      externalIdFieldName: 'Prospect_Sync_Id__c',
    });
    const csv =
      'Prospect_Sync_Id__c,LastName,Title,Account.Prospect_Sync_Id__c\n' +
      'p1,"Ünïcødé ""quoted"", with comma",#N/A,acc\n' +
      'p2,Two,"multi\nline",ghost\n' +
      'p3,,Nobody,\n';
    expect(
      (await api('PUT', `/jobs/ingest/${job.json.id}/batches`, csv, { 'content-type': 'application/json' })).status,
    ).toBe(400);
    const put = await api('PUT', `/jobs/ingest/${job.json.id}/batches`, csv, { 'content-type': 'text/csv' });
    expect(put.status).toBe(201);
    expect(put.text).toBe('');
    expect((await api('PUT', `/jobs/ingest/${job.json.id}/batches`, csv, { 'content-type': 'text/csv' })).status).toBe(
      409,
    );
    expect((await api('PATCH', `/jobs/ingest/${job.json.id}`, { state: 'UploadComplete' })).json.state).toBe(
      'UploadComplete',
    );
    const done = await waitDone(job.json.id);
    expect(done).toMatchObject({ state: 'JobComplete', numberRecordsFailed: 2 });
    const ok = parse((await api('GET', `/jobs/ingest/${job.json.id}/successfulResults`)).text, {
      columns: true,
    }) as Record<string, string>[];
    expect(ok).toHaveLength(1);
    expect(ok[0]).toMatchObject({
      sf__Created: 'true',
      Prospect_Sync_Id__c: 'p1',
      LastName: 'Ünïcødé "quoted", with comma',
    });
    expect(sf.state.get('Contact', ok[0]!.sf__Id!)).toMatchObject({
      LastName: 'Ünïcødé "quoted", with comma',
      Title: null,
      AccountId: sf.state.findBy('Account', 'Prospect_Sync_Id__c', 'acc')[0]!.Id,
    });
    const failed = parse((await api('GET', `/jobs/ingest/${job.json.id}/failedResults`)).text, {
      columns: true,
    }) as Record<string, string>[];
    expect(failed.map((f) => [f.Prospect_Sync_Id__c, f.sf__Error!.split(':')[0]])).toEqual([
      ['p2', 'INVALID_FIELD'],
      ['p3', 'REQUIRED_FIELD_MISSING'],
    ]);
    expect(failed[0]!.Title).toBe('multi\nline');
    expect((await api('GET', `/jobs/ingest/${job.json.id}/unprocessedrecords`)).text.trim()).toBe(
      'Prospect_Sync_Id__c,LastName,Title,Account.Prospect_Sync_Id__c',
    );
    expect((await api('DELETE', `/jobs/ingest/${job.json.id}`)).status).toBe(204);
    expect((await api('GET', `/jobs/ingest/${job.json.id}`)).status).toBe(404);
  });
  test('bad jobs: unknown object, upsert without external id, unknown CSV column fails the job', async () => {
    expect(
      (await api('POST', '/jobs/ingest', { object: 'Nope', operation: 'upsert', externalIdFieldName: 'X' })).status,
    ).toBe(404);
    expect((await api('POST', '/jobs/ingest', { object: 'Account', operation: 'upsert' })).status).toBe(400);
    expect((await api('POST', '/jobs/ingest', { object: 'Account', operation: 'merge' })).status).toBe(400);
    const job = await api('POST', '/jobs/ingest', {
      object: 'Account',
      operation: 'upsert',
      externalIdFieldName: 'Prospect_Sync_Id__c',
    });
    await api('PUT', `/jobs/ingest/${job.json.id}/batches`, 'Prospect_Sync_Id__c,Name,Bogus__c\na,A,1\n', {
      'content-type': 'text/csv',
    });
    await api('PATCH', `/jobs/ingest/${job.json.id}`, { state: 'UploadComplete' });
    const info = await waitDone(job.json.id);
    expect(info.state).toBe('Failed');
    expect((info as { errorMessage?: string }).errorMessage).toMatch(/Bogus__c/);
  });
});

describe('fault injection', () => {
  test('a status sequence is served in order before normal answers, with Salesforce-like bodies', async () => {
    sf.faults.sequence = [503, 429, 500];
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await api('GET', '/sobjects/Account/describe')).status);
    expect(statuses).toEqual([503, 429, 500, 200]);
    expect(sf.stats.statuses[503]).toBe(1);
  });
  test('latency delays answers', async () => {
    sf.faults.latencyMs = 60;
    const t = Date.now();
    await api('GET', '/sobjects/Account/describe');
    expect(Date.now() - t).toBeGreaterThanOrEqual(55);
  });
});

describe('campaigns and campaign members', () => {
  const contact = async (key: string): Promise<string> =>
    (await api('PATCH', `/sobjects/Contact/Prospect_Sync_Id__c/${key}`, { LastName: key })).json.id as string;
  const campaign = async (name: string): Promise<string> => {
    const res = await api('POST', '/sobjects/Campaign', { Name: name });
    expect(res.status).toBe(201);
    return res.json.id as string;
  };
  const member = (campaignId: string, link: Record<string, string>) => ({
    attributes: { type: 'CampaignMember' },
    CampaignId: campaignId,
    ...link,
  });

  test('Campaign names are not unique: two of one name, both found by SOQL whatever the case', async () => {
    const a = await campaign('Launch');
    const b = await campaign('Launch');
    expect(a).toMatch(/^701\w{15}$/);
    expect(a).not.toBe(b);
    const q = await api('GET', `/query?q=${encodeURIComponent("SELECT Id FROM Campaign WHERE Name = 'launch'")}`);
    expect(q.json.records.map((r: { Id: string }) => r.Id).sort()).toEqual([a, b].sort());
    expect((await api('POST', '/sobjects/Campaign', {})).json).toEqual([
      { message: 'Required fields are missing: [Name]', errorCode: 'REQUIRED_FIELD_MISSING', fields: ['Name'] },
    ]);
  });

  test(
    'a second member for the same campaign and contact is refused with DUPLICATE_VALUE, in one collection ' + 'too',
    async () => {
      const c = await campaign('Members');
      const p1 = await contact('p1');
      const p2 = await contact('p2');
      const res = await api('POST', '/composite/sobjects', {
        allOrNone: false,
        records: [member(c, { ContactId: p1 }), member(c, { ContactId: p1 }), member(c, { ContactId: p2 })],
      });
      expect(res.status).toBe(200);
      expect(res.json[0]).toMatchObject({ success: true, errors: [] });
      expect(res.json[0].id).toMatch(/^00v/);
      expect(res.json[1]).toEqual({
        id: null,
        success: false,
        errors: [{ statusCode: 'DUPLICATE_VALUE', message: 'Already a campaign member.', fields: [] }],
      });
      expect(res.json[2]).toMatchObject({ success: true });
      const again = await api('POST', '/composite/sobjects', {
        allOrNone: false,
        records: [member(c, { ContactId: p2 })],
      });
      expect(again.json[0].errors[0].statusCode).toBe('DUPLICATE_VALUE');
      const none = await api('POST', '/composite/sobjects', {
        allOrNone: false,
        records: [member(c, {}), member(c, { ContactId: '003000000000ZZZAAA' })],
      });
      expect(none.json[0].errors[0].statusCode).toBe('REQUIRED_FIELD_MISSING');
      expect(none.json[1].errors[0]).toMatchObject({
        statusCode: 'INVALID_CROSS_REFERENCE_KEY',
        fields: ['ContactId'],
      });
      expect(sf.state.all('CampaignMember')).toHaveLength(2);
    },
  );

  test('AccountId exists only with "Accounts as Campaign Members" on', async () => {
    const c = await campaign('Accounts');
    const acc = (await api('PATCH', '/sobjects/Account/Prospect_Sync_Id__c/a1', { Name: 'A1' })).json.id as string;
    const fields = async (): Promise<string[]> =>
      (await api('GET', '/sobjects/CampaignMember/describe')).json.fields.map((f: { name: string }) => f.name);
    expect(await fields()).not.toContain('AccountId');
    const off = await api('POST', '/composite/sobjects', {
      allOrNone: false,
      records: [member(c, { AccountId: acc })],
    });
    expect(off.status).toBe(400);
    expect(off.json[0].errorCode).toBe('INVALID_FIELD');
    sf.state.settings.accountsAsCampaignMembers = true;
    expect(await fields()).toContain('AccountId');
    const on = await api('POST', '/composite/sobjects', { allOrNone: false, records: [member(c, { AccountId: acc })] });
    expect(on.json[0]).toMatchObject({ success: true });
  });

  test(
    'members are deleted by id (collections); a deleted contact leaves its campaigns; a second delete says ' +
      'ENTITY_IS_DELETED',
    async () => {
      const c = await campaign('Delete');
      const p1 = await contact('p1');
      const p2 = await contact('p2');
      const created = await api('POST', '/composite/sobjects', {
        allOrNone: false,
        records: [member(c, { ContactId: p1 }), member(c, { ContactId: p2 })],
      });
      const m1 = created.json[0].id as string;
      const del = await api('DELETE', `/composite/sobjects?ids=${m1},00v00000000ZZZZAAA`);
      expect(del.json).toEqual([
        { id: m1, success: true, errors: [] },
        // A failed DeleteResult carries no id (the stricter reading of the docs): clients match results by position.
        {
          success: false,
          errors: [{ statusCode: 'INVALID_CROSS_REFERENCE_KEY', message: 'invalid cross reference id', fields: [] }],
        },
      ]);
      expect((await api('DELETE', `/composite/sobjects?ids=${m1}`)).json[0].errors[0].statusCode).toBe(
        'ENTITY_IS_DELETED',
      );
      expect((await api('DELETE', `/sobjects/Contact/${p2}`)).status).toBe(204);
      expect(sf.state.all('CampaignMember')).toHaveLength(0);
      const ids = Array.from({ length: 201 }, () => m1).join(',');
      expect((await api('DELETE', `/composite/sobjects?ids=${ids}`)).json[0].errorCode).toBe('EXCEEDED_ID_LIMIT');
    },
  );

  test('a query answers at most a batch and hands the rest by nextRecordsUrl; WHERE takes AND', async () => {
    await restart({ queryBatchSize: 2 });
    const c = await campaign('Paged');
    const people = await Promise.all(['p1', 'p2', 'p3'].map(contact));
    await api('POST', '/composite/sobjects', {
      allOrNone: false,
      records: people.map((p) => member(c, { ContactId: p })),
    });
    const first = await api(
      'GET',
      `/query?q=${encodeURIComponent(`SELECT Id, ContactId FROM CampaignMember WHERE CampaignId = '${c}'`)}`,
    );
    expect(first.json).toMatchObject({ totalSize: 3, done: false });
    expect(first.json.records).toHaveLength(2);
    const next = await api('GET', first.json.nextRecordsUrl as string);
    expect(next.json).toMatchObject({ totalSize: 3, done: true });
    expect([...first.json.records, ...next.json.records].map((r: { ContactId: string }) => r.ContactId).sort()).toEqual(
      people.slice().sort(),
    );
    const andQuery = `SELECT Id FROM CampaignMember WHERE CampaignId = '${c}' AND ContactId IN ('${people[1]!}', 'x')`;
    const and = await api('GET', `/query?q=${encodeURIComponent(andQuery)}`);
    expect(and.json.records).toHaveLength(1);
  });
});
