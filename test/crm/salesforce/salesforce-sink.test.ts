import { afterEach, describe, expect, test } from 'vitest';
import type { CrmRecord, UpsertOutcome } from '../../../src/crm/crm-sink.js';
import { SalesforceSink } from '../../../src/crm/salesforce/salesforce-sink.js';
import { listGovernorSnapshots } from '../../../src/shared/governor-snapshots.js';
import { defaultSchema } from '../../../src/emulators/salesforce/salesforce-schema.js';
import { ACCOUNTS, CLIENT, CONTACTS, LEADS, accounts, sfFixture } from './sf-fixture.js';

let fixture: Awaited<ReturnType<typeof sfFixture>> | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});
const start = async (...args: Parameters<typeof sfFixture>) => (fixture = await sfFixture(...args));
const statuses = (outcomes: UpsertOutcome[]) => outcomes.map((o) => o.status);

describe('prepare', () => {
  test(
    'a missing match field, a non-external-id match field and a missing mapped field fail with clear typed ' + 'errors',
    async () => {
      const schema = defaultSchema();
      schema.Account!.fields.push({ name: 'Plain__c', type: 'string', length: 20 });
      const { sink } = await start({ objects: schema });
      await expect(sink.prepare({ ...ACCOUNTS, matchField: 'Missing__c' })).rejects.toMatchObject({
        code: 'crm_schema_mismatch',
        message: expect.stringMatching(/Account\.Missing__c does not exist/),
      });
      await expect(sink.prepare({ ...ACCOUNTS, matchField: 'Plain__c' })).rejects.toMatchObject({
        code: 'crm_schema_mismatch',
        message: expect.stringMatching(/Account\.Plain__c is not marked External ID/),
      });
      await expect(sink.prepare({ ...ACCOUNTS, fields: ['Name', 'Revenue_Band__c'] })).rejects.toMatchObject({
        code: 'crm_schema_mismatch',
        message: expect.stringMatching(/Revenue_Band__c/),
      });
      await expect(sink.prepare({ ...ACCOUNTS, object: 'Nope__c' })).rejects.toMatchObject({
        code: 'crm_schema_mismatch',
      });
      await expect(
        sink.prepare({ ...LEADS, associate: { object: 'Account', matchField: 'Prospect_Sync_Id__c' } }),
      ).rejects.toMatchObject({ code: 'crm_schema_mismatch', message: expect.stringMatching(/no lookup to Account/) });
      await expect(sink.prepare(ACCOUNTS)).resolves.toBeUndefined();
      await expect(sink.prepare(CONTACTS)).resolves.toBeUndefined();
    },
  );
  test('wrong client credentials fail with crm_auth_failed and no secret in the message', async () => {
    const { emulator } = await start();
    const sink = new SalesforceSink({
      loginUrl: emulator.url,
      clientId: CLIENT.clientId,
      clientSecret: 'wrong-secret-xyz',
    });
    const err = (await sink.prepare(ACCOUNTS).catch((e: unknown) => e)) as Error & { code: string };
    expect(err).toMatchObject({ code: 'crm_auth_failed' });
    expect(JSON.stringify({ m: err.message, s: err.stack })).not.toContain('wrong-secret-xyz');
  });
});

describe('collections upsert', () => {
  test('idempotent: the same 450 records twice create once, then only update; no call passes 200 records', async () => {
    const { sink, emulator } = await start();
    const records = accounts(450);
    const first = await sink.upsert(ACCOUNTS, records);
    expect(first.map((o) => o.key)).toEqual(records.map((r) => r.key));
    expect(new Set(statuses(first))).toEqual(new Set(['created']));
    const second = await sink.upsert(ACCOUNTS, records);
    expect(new Set(statuses(second))).toEqual(new Set(['updated']));
    expect(second.map((o) => (o as { crmId: string }).crmId)).toEqual(first.map((o) => (o as { crmId: string }).crmId));
    expect(emulator.state.all('Account')).toHaveLength(450);
    expect(Math.max(...emulator.stats.collectionSizes)).toBe(200);
    expect(emulator.stats.statuses[400]).toBeUndefined();
  });
  test('one bad record among 200 never blocks the other 199, and its reason carries no contact details', async () => {
    const { sink, emulator } = await start();
    await sink.upsert(ACCOUNTS, accounts(1));
    const people: CrmRecord[] = Array.from({ length: 200 }, (_, i) => ({
      key: `p${i}`,
      properties: { LastName: `Last ${i}`, Email: `p${i}@example.com` },
      companyKey: 'acc-0',
    }));
    people[117] = { ...people[117]!, properties: { LastName: 'Broken', Email: 'jane.doe@@broken' } };
    const out = await sink.upsert(CONTACTS, people);
    expect(out).toHaveLength(200);
    expect(out.filter((o) => o.status === 'created')).toHaveLength(199);
    expect(out[117]).toMatchObject({ key: 'p117', status: 'rejected', code: 'INVALID_EMAIL_ADDRESS' });
    expect(JSON.stringify(out[117])).not.toContain('jane.doe');
    expect(emulator.state.all('Contact')).toHaveLength(199);
  });
  test(
    'Contacts link to their Account by its external id; an unknown parent still writes the person, with ' + 'linkError',
    async () => {
      const { sink, emulator } = await start();
      await sink.upsert(ACCOUNTS, accounts(2));
      const out = await sink.upsert(CONTACTS, [
        { key: 'p1', properties: { LastName: 'One' }, companyKey: 'acc-1' },
        { key: 'p2', properties: { LastName: 'Two' }, companyKey: 'not-synced-yet' },
        { key: 'p3', properties: { LastName: 'Three' } },
        { key: 'p4', properties: { FirstName: 'NoLast' }, companyKey: 'not-synced-yet' },
      ]);
      expect(statuses(out)).toEqual(['created', 'created', 'created', 'rejected']);
      const acc1 = emulator.state.findBy('Account', 'Prospect_Sync_Id__c', 'acc-1')[0]!;
      expect(emulator.state.findBy('Contact', 'Prospect_Sync_Id__c', 'p1')[0]!.AccountId).toBe(acc1.Id);
      expect(out[0]).not.toHaveProperty('linkError');
      expect(out[1]).toMatchObject({ linkError: expect.stringMatching(/not-synced-yet/) });
      expect(emulator.state.findBy('Contact', 'Prospect_Sync_Id__c', 'p2')[0]!.AccountId).toBeUndefined();
      expect(out[3]).toMatchObject({ code: 'REQUIRED_FIELD_MISSING' });
    },
  );
  test('Leads: created, updated, and a missing Company is a per-record REQUIRED_FIELD_MISSING', async () => {
    const { sink, emulator } = await start();
    const leads: CrmRecord[] = [
      { key: 'l1', properties: { LastName: 'Lee', Company: 'Acme' } },
      { key: 'l2', properties: { LastName: 'Nocompany' } },
    ];
    expect(statuses(await sink.upsert(LEADS, leads))).toEqual(['created', 'rejected']);
    const again = await sink.upsert(LEADS, [{ key: 'l1', properties: { LastName: 'Lee', Company: 'Acme GmbH' } }]);
    expect(again[0]!.status).toBe('updated');
    expect(emulator.state.findBy('Lead', 'Prospect_Sync_Id__c', 'l1')[0]!.Company).toBe('Acme GmbH');
  });
  test(
    'odd Unicode, quotes, backslashes and newlines survive the round trip; readCurrent escapes them in ' + 'SOQL',
    async () => {
      const { sink, emulator } = await start();
      const odd = ["O'Brien & Söhne", 'Back\\slash "dq"', '株式会社テスト 🚀', "line\nbreak 'x'"];
      const records = odd.map((name, i) => ({ key: `${name}#${i}`, properties: { Name: name, Description: name } }));
      expect(new Set(statuses(await sink.upsert(ACCOUNTS, records)))).toEqual(new Set(['created']));
      for (const r of records)
        expect(emulator.state.findBy('Account', 'Prospect_Sync_Id__c', r.key)[0]!.Name).toBe(r.properties.Name);
      const current = await sink.readCurrent(
        ACCOUNTS,
        [...records.map((r) => r.key), "absent'key"],
        ['Name', 'Website'],
      );
      expect(current.size).toBe(4);
      for (const r of records) expect(current.get(r.key)).toEqual({ Name: r.properties.Name, Website: null });
    },
  );
  test('field names are case-insensitive as in Salesforce: writes and readCurrent use the org spelling', async () => {
    const schema = defaultSchema();
    schema.Account!.fields.push({ name: 'Type', type: 'string', length: 40 });
    const { sink, emulator } = await start({ objects: schema });
    const target = { object: 'account', matchField: 'prospect_sync_id__c', fields: ['name', 'type'] };
    const out = await sink.upsert(target, [{ key: 'k1', properties: { name: 'Lower', type: 'Customer' } }]);
    expect(out[0]!.status).toBe('created');
    expect(emulator.state.findBy('Account', 'Prospect_Sync_Id__c', 'k1')[0]).toMatchObject({
      Name: 'Lower',
      Type: 'Customer',
    });
    expect(await sink.readCurrent(target, ['k1'], ['name', 'type'])).toEqual(
      new Map([['k1', { name: 'Lower', type: 'Customer' }]]),
    );
  });
  test('readCurrent chunks large key lists (each query stays small)', async () => {
    const { sink, emulator } = await start();
    await sink.upsert(ACCOUNTS, accounts(450));
    const current = await sink.readCurrent(
      ACCOUNTS,
      accounts(450).map((r) => r.key),
      ['Name'],
    );
    expect(current.size).toBe(450);
    expect(current.get('acc-449')).toEqual({ Name: 'Company 449' });
    expect(emulator.stats.requests['GET query']).toBe(3);
  });
  test("readCurrent's queries go out side by side (the upsert's lanes), not one after another", async () => {
    const { sink, emulator } = await start();
    await sink.upsert(ACCOUNTS, accounts(800));
    emulator.faults.latencyMs = 50;
    const current = await sink.readCurrent(
      ACCOUNTS,
      accounts(800).map((r) => r.key),
      ['Name'],
    );
    expect(current.size).toBe(800);
    expect(emulator.stats.requests['GET query']).toBe(4);
    expect(emulator.stats.peakInFlight['GET query']).toBe(4);
  });
});

describe('sessions, limits and faults', () => {
  test(
    'an expired session mid-run is renewed through refreshFn (client credentials again) without losing ' + 'records',
    async () => {
      const { sink, emulator } = await start();
      await sink.upsert(ACCOUNTS, accounts(10));
      emulator.expireAllSessions();
      const out = await sink.upsert(ACCOUNTS, accounts(300));
      expect(out.filter((o) => o.status !== 'rejected')).toHaveLength(300);
      expect(emulator.stats.tokensIssued).toBe(2);
      expect(emulator.stats.statuses[401]).toBeGreaterThanOrEqual(1);
    },
  );
  test('short-lived tokens expire during a run and are renewed', async () => {
    // A lifetime long enough that the first upsert (login, describe, write) ends within it on a loaded machine.
    const { sink, emulator } = await start({ tokenLifetimeSeconds: 1 });
    await sink.upsert(ACCOUNTS, accounts(5));
    const issued = emulator.stats.tokensIssued;
    await new Promise((r) => setTimeout(r, 1_100));
    expect(new Set(statuses(await sink.upsert(ACCOUNTS, accounts(5))))).toEqual(new Set(['updated']));
    expect(emulator.stats.tokensIssued).toBe(issued + 1);
  });
  test('503, 429 and 500 answers are retried without losing or duplicating a record', async () => {
    const { sink, emulator } = await start();
    await sink.prepare(ACCOUNTS);
    emulator.faults.sequence = [503, 429, 500];
    const out = await sink.upsert(ACCOUNTS, accounts(400), { runVolume: 400 });
    expect(out.filter((o) => o.status === 'created')).toHaveLength(400);
    expect(emulator.state.all('Account')).toHaveLength(400);
    expect(emulator.stats.statuses[503]).toBe(1);
    expect(emulator.stats.statuses[429]).toBe(1);
  });
  test('a steady 25% error share still lands every record exactly once', async () => {
    const { sink, emulator } = await start({}, { retry: { attempts: 8, baseDelayMs: 2, maxDelayMs: 20 } });
    await sink.prepare(ACCOUNTS);
    emulator.faults.errorShare = 0.25;
    const out = await sink.upsert(ACCOUNTS, accounts(2000));
    expect(out.every((o) => o.status === 'created')).toBe(true);
    expect(emulator.state.all('Account')).toHaveLength(2000);
    expect(emulator.stats.statuses[503]).toBeGreaterThan(0);
  });
  test('persistent 5xx gives up with crm_unavailable after the configured attempts', async () => {
    const { sink, emulator } = await start({}, { retry: { attempts: 3, baseDelayMs: 1, maxDelayMs: 5 } });
    await sink.prepare(ACCOUNTS);
    emulator.faults.errorShare = 1;
    emulator.faults.status = 502;
    await expect(sink.upsert(ACCOUNTS, accounts(3))).rejects.toMatchObject({ code: 'crm_unavailable' });
    expect(emulator.stats.statuses[502]).toBe(3);
  });
  test('Sforce-Limit-Info share cap: stops before passing maxApiShare of the daily allowance', async () => {
    const { sink, emulator } = await start({ apiDailyLimit: 100, apiUsageStart: 44 }, { maxApiShare: 0.5 });
    await sink.prepare(ACCOUNTS);
    expect(sink.apiUsage).toEqual({ used: 45, limit: 100 });
    const err = await sink.upsert(ACCOUNTS, accounts(2000)).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'crm_api_share_exceeded' });
    expect(emulator.stats.apiUsage).toBe(50);
  });
  test('the share cap reads the usage another process saw (org governor state in Redis)', async () => {
    const { sink, emulator, redis, keyPrefix } = await start(
      { apiDailyLimit: 100, apiUsageStart: 49 },
      { maxApiShare: 0.5 },
    );
    await sink.prepare(ACCOUNTS); // api-usage=50/100 reaches the shared state
    const other = new SalesforceSink({ loginUrl: emulator.url, ...CLIENT, maxApiShare: 0.5, redis, keyPrefix });
    await expect(other.prepare(ACCOUNTS)).rejects.toMatchObject({ code: 'crm_api_share_exceeded' });
    expect(emulator.stats.apiUsage).toBe(50); // refused before its describe call went out
    const snapshots = await listGovernorSnapshots(redis, keyPrefix);
    expect(snapshots).toEqual([
      expect.objectContaining({
        remote: 'salesforce',
        operation: 'api',
        requests: expect.objectContaining({ '2xx': 1 }),
      }),
    ]);
    expect(JSON.stringify(snapshots)).not.toContain(CLIENT.clientId);
  });
  test('the share guard also stops a run just before the allowance itself runs out', async () => {
    const { sink, emulator } = await start({ apiDailyLimit: 3 }, { maxApiShare: 1 });
    await sink.prepare(ACCOUNTS);
    await sink.upsert(ACCOUNTS, accounts(200));
    await sink.upsert(ACCOUNTS, accounts(200));
    await expect(sink.upsert(ACCOUNTS, accounts(200))).rejects.toMatchObject({ code: 'crm_api_share_exceeded' });
    expect(emulator.stats.statuses[403]).toBeUndefined();
  });
  test(
    'REQUEST_LIMIT_EXCEEDED (other integrations used the rest) stops the run with crm_daily_limit, without ' +
      'retrying',
    async () => {
      const { sink, emulator, redis, keyPrefix } = await start({ apiDailyLimit: 1000 }, { maxApiShare: 1 });
      await sink.prepare(ACCOUNTS);
      await sink.upsert(ACCOUNTS, accounts(200));
      emulator.stats.apiUsage = 1000;
      await expect(sink.upsert(ACCOUNTS, accounts(200))).rejects.toMatchObject({ code: 'crm_daily_limit' });
      expect(emulator.stats.statuses[403]).toBe(1);
      expect(emulator.state.all('Account')).toHaveLength(200);
      // Every other process of the org is refused without a call until the probe time.
      const other = new SalesforceSink({ loginUrl: emulator.url, ...CLIENT, maxApiShare: 1, redis, keyPrefix });
      await expect(other.prepare(ACCOUNTS)).rejects.toMatchObject({ code: 'crm_daily_limit' });
      expect(emulator.stats.statuses[403]).toBe(1);
    },
  );
});

describe('Bulk API 2.0 above the threshold', () => {
  test('preferredBatchSize switches with the run volume', async () => {
    const { sink } = await start({}, { bulkThreshold: 2000, bulkBatchSize: 10_000, concurrency: 3 });
    expect(sink.preferredBatchSize(2000)).toBe(600);
    expect(sink.preferredBatchSize(2001)).toBe(10_000);
  });
  test('in a bulk run, small batches still go by collections (fewer API requests)', async () => {
    const { sink, emulator } = await start({}, { bulkThreshold: 2000 });
    const out = await sink.upsert(ACCOUNTS, accounts(1400), { runVolume: 50_000 });
    expect(out.every((o) => o.status === 'created')).toBe(true);
    expect(emulator.stats.requests['POST jobs/ingest']).toBeUndefined();
    expect(emulator.stats.requests['PATCH composite/sobjects']).toBe(7);
  });
  test('large runs go through ingest jobs; failed rows map back to their keys; CSV escaping holds', async () => {
    const { sink, emulator } = await start();
    const records = accounts(2500, (i) => (i % 500 === 7 ? `Quote "q" , comma 'apos' \n Ünï ${i}` : `Company ${i}`));
    records[10] = { key: 'acc-10', properties: { Name: 'x'.repeat(300) } };
    emulator.faults.rejectKeys = ['acc-2000'];
    const out = await sink.upsert(ACCOUNTS, records, { runVolume: 2500 });
    expect(emulator.stats.requests['POST jobs/ingest']).toBe(1);
    expect(emulator.stats.requests['PATCH composite/sobjects']).toBeUndefined();
    expect(out.map((o) => o.key)).toEqual(records.map((r) => r.key));
    expect(out[10]).toMatchObject({ status: 'rejected', code: 'STRING_TOO_LONG' });
    expect(JSON.stringify(out[10])).not.toContain('x'.repeat(40));
    expect(out[2000]).toMatchObject({ status: 'rejected', code: 'FIELD_CUSTOM_VALIDATION_EXCEPTION' });
    expect(out.filter((o) => o.status === 'created')).toHaveLength(2498);
    expect(emulator.state.findBy('Account', 'Prospect_Sync_Id__c', 'acc-507')[0]!.Name).toBe(
      `Quote "q" , comma 'apos' \n Ünï 507`,
    );
    const again = await sink.upsert(ACCOUNTS, records, { runVolume: 2500 });
    expect(again.filter((o) => o.status === 'updated')).toHaveLength(2498);
    expect(emulator.state.all('Account')).toHaveLength(2498);
  });
  test(
    'bulk Contacts link through the dotted Account.Prospect_Sync_Id__c column; unknown parents fall back to no ' +
      'link',
    async () => {
      const { sink, emulator } = await start({}, { bulkThreshold: 10, bulkMinBatch: 1 });
      await sink.upsert(ACCOUNTS, accounts(3));
      const people: CrmRecord[] = Array.from({ length: 30 }, (_, i) => ({
        key: `p${i}`,
        properties: { LastName: `L${i}`, ...(i === 4 ? { Title: null } : {}) },
        companyKey: i === 5 ? 'ghost' : `acc-${i % 3}`,
      }));
      const out = await sink.upsert(CONTACTS, people, { runVolume: 30 });
      expect(out.every((o) => o.status === 'created')).toBe(true);
      expect(out[5]).toMatchObject({ linkError: expect.stringMatching(/ghost/) });
      expect(emulator.state.findBy('Contact', 'Prospect_Sync_Id__c', 'p4')[0]!.AccountId).toBe(
        emulator.state.findBy('Account', 'Prospect_Sync_Id__c', 'acc-1')[0]!.Id,
      );
      expect(emulator.state.findBy('Contact', 'Prospect_Sync_Id__c', 'p5')[0]!.AccountId).toBeUndefined();
    },
  );
  test('a field deleted in Salesforce after prepare fails the bulk job with a typed, non-retried error', async () => {
    const { sink, emulator } = await start({}, { bulkThreshold: 10, bulkMinBatch: 1 });
    await sink.prepare(ACCOUNTS);
    const account = emulator.state.schema.Account!;
    account.fields = account.fields.filter((f) => f.name !== 'Description');
    const records = accounts(20).map((r) => ({ ...r, properties: { ...r.properties, Description: 'd' } }));
    await expect(sink.upsert(ACCOUNTS, records, { runVolume: 20 })).rejects.toMatchObject({
      code: 'crm_request_failed',
      message: expect.stringMatching(/Description/),
    });
    expect(emulator.stats.requests['POST jobs/ingest']).toBe(1);
    expect(emulator.state.all('Account')).toHaveLength(0);
  });
  test(
    "a bulk job that outlasts the poll timeout fails with crm_unavailable, not jsforce's untyped " + 'error',
    async () => {
      const { sink } = await start(
        { bulkProcessingDelayMs: 2000 },
        { bulkThreshold: 10, bulkMinBatch: 1, bulkPollTimeoutMs: 60 },
      );
      await sink.prepare(ACCOUNTS);
      await expect(sink.upsert(ACCOUNTS, accounts(20), { runVolume: 20 })).rejects.toMatchObject({
        code: 'crm_unavailable',
        message: expect.stringMatching(/BULK_POLL_TIMEOUT/),
      });
    },
  );
  test('a 503 during the bulk job is retried and no record is lost', async () => {
    const { sink, emulator } = await start({}, { bulkThreshold: 10, bulkMinBatch: 1 });
    await sink.prepare(ACCOUNTS);
    emulator.faults.sequence = [503];
    const out = await sink.upsert(ACCOUNTS, accounts(50), { runVolume: 50 });
    expect(out.every((o) => o.status === 'created')).toBe(true);
    expect(emulator.state.all('Account')).toHaveLength(50);
  });
});

describe('Salesforce sink: a 5xx never fails a run (issue 12)', () => {
  test(
    'a 5xx on the Bulk API 2.0 CSV upload is retried with the request rebuilt; every record lands ' + 'once',
    async () => {
      const { sink, emulator } = await start({}, { bulkThreshold: 10, bulkMinBatch: 1 });
      await sink.prepare(ACCOUNTS);
      emulator.faults.routeFailures = { route: 'PUT jobs/ingest/{id}/batches', status: 503, times: 1 };
      const out = await sink.upsert(ACCOUNTS, accounts(50), { runVolume: 50 });
      expect(emulator.faults.routeFailures.times).toBe(0);
      expect(emulator.stats.requests['POST jobs/ingest']).toBe(2); // the job was aborted and built again
      expect(out.every((o) => o.status === 'created')).toBe(true);
      expect(emulator.state.all('Account')).toHaveLength(50);
    },
  );

  test(
    "a 5xx on a bulk job's status poll or results download is retried alone: the job is not built " + 'again',
    async () => {
      const { sink, emulator } = await start({}, { bulkThreshold: 10, bulkMinBatch: 1 });
      await sink.prepare(ACCOUNTS);
      emulator.faults.routeFailures = { route: 'GET jobs/ingest/{id}', status: 503, times: 1 };
      const first = await sink.upsert(ACCOUNTS, accounts(50), { runVolume: 50 });
      expect(emulator.faults.routeFailures.times).toBe(0);
      expect(first.every((o) => o.status === 'created')).toBe(true);
      emulator.faults.routeFailures = { route: 'GET jobs/ingest/{id}/successfulResults', status: 502, times: 1 };
      const second = await sink.upsert(ACCOUNTS, accounts(50), { runVolume: 50 });
      expect(emulator.faults.routeFailures.times).toBe(0);
      expect(second.every((o) => o.status === 'updated')).toBe(true);
      expect(emulator.stats.requests['POST jobs/ingest']).toBe(2); // one job per upsert, none re-created
      expect(emulator.state.all('Account')).toHaveLength(50);
    },
  );

  test('a 5xx on every kind of collections call (upsert, query) is retried', async () => {
    const { sink, emulator } = await start();
    await sink.prepare(ACCOUNTS);
    emulator.faults.routeFailures = { route: 'PATCH composite/sobjects', status: 500, times: 1 };
    const out = await sink.upsert(ACCOUNTS, accounts(30));
    expect(emulator.faults.routeFailures.times).toBe(0);
    expect(out.every((o) => o.status === 'created')).toBe(true);
    emulator.faults.routeFailures = { route: 'GET query', status: 502, times: 1 };
    const current = await sink.readCurrent(ACCOUNTS, ['acc-1', 'acc-2'], ['Name']);
    expect(emulator.faults.routeFailures.times).toBe(0);
    expect(current.size).toBe(2);
  });
});

describe('archive (delete by match key)', () => {
  test(
    'deletes by external id 200 ids per call; gone and unknown keys are missing; a refused delete is kept with ' +
      'its reason',
    async () => {
      const { sink, emulator } = await start();
      const records = accounts(250);
      await sink.upsert(ACCOUNTS, records);
      const keys = records.map((r) => r.key);
      emulator.faults.undeletableKeys = ['acc-7'];
      const result = await sink.archive(ACCOUNTS, [...keys, 'acc-none']);
      expect(result.archived).toEqual(keys.filter((k) => k !== 'acc-7'));
      expect(result.missing).toEqual(['acc-none']);
      expect(result.refused).toEqual(['acc-7']);
      expect(result.reason).toMatch(/^DELETE_FAILED: /);
      expect(emulator.stats.requests['DELETE composite/sobjects']).toBe(2);
      expect(emulator.state.all('Account').map((r) => r.Prospect_Sync_Id__c)).toEqual(['acc-7']);
      expect(emulator.state.recycleBin.size).toBe(249);
      // Deleted already: nothing to delete, nothing asked of the org but the read.
      expect(await sink.archive(ACCOUNTS, ['acc-0', 'acc-1'])).toEqual({
        archived: [],
        missing: ['acc-0', 'acc-1'],
        refused: [],
      });
      expect(emulator.stats.requests['DELETE composite/sobjects']).toBe(2);
      // An upsert by a deleted record's external id creates it anew.
      expect(statuses(await sink.upsert(ACCOUNTS, records.slice(0, 1)))).toEqual(['created']);
    },
  );
});

describe('archive: a record deleted between the read and the delete', () => {
  test('is missing (ENTITY_IS_DELETED), not refused', async () => {
    const { sink, emulator } = await start({}, { requestTimeoutMs: 2000 });
    await sink.upsert(ACCOUNTS, accounts(3));
    // The first delete call is read and never answered; while the sink waits out its deadline, acc-1 is deleted
    // elsewhere; the retried call then meets it deleted.
    emulator.faults.hang = { route: 'DELETE composite/sobjects', times: 1 };
    const archiving = sink.archive(ACCOUNTS, ['acc-0', 'acc-1', 'acc-2']);
    await expect.poll(() => emulator.faults.hung ?? 0, { timeout: 10_000, interval: 5 }).toBe(1);
    const id = String(emulator.state.findBy('Account', 'Prospect_Sync_Id__c', 'acc-1')[0]?.Id);
    expect(emulator.state.delete(id, [])).toEqual({ ok: true, id });
    expect(await archiving).toEqual({ archived: ['acc-0', 'acc-2'], missing: ['acc-1'], refused: [] });
  });
});
