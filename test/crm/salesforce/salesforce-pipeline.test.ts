import { afterEach, beforeEach, expect, test } from 'vitest';
import { compileFieldMapping, createCrmWriter, createRejectStore } from '../../../src/crm/index.js';
import { testRedis } from '../../helpers/redis.js';
import { sfFixture } from './sf-fixture.js';

// The shared CRM pipeline (mapping, change detection, ifEmpty, rejects) driving the Salesforce sink.
let fixture: Awaited<ReturnType<typeof sfFixture>>;
let redis: Awaited<ReturnType<typeof testRedis>>;
beforeEach(async () => {
  fixture = await sfFixture({}, { bulkThreshold: 50, bulkMinBatch: 1 });
  redis = await testRedis('sf-pipeline');
});
afterEach(async () => {
  await fixture.close();
  await redis.cleanup();
});

const companies = (n: number, industry = 'Software') =>
  Array.from({ length: n }, (_, i) => ({ id: `c${i}`, name: `Company ${i}`, headcount: 100 + i, industry }));
const mapping = compileFieldMapping(
  {
    matchOn: { field: 'Prospect_Sync_Id__c', from: 'id' },
    fields: { Name: 'name', NumberOfEmployees: 'headcount', Description: { from: 'industry', overwrite: 'ifEmpty' } },
  },
  { object: 'Account' },
);

test(
  'unchanged records are not sent again; ifEmpty keeps values users set in Salesforce; rejects are kept with ' +
    'reasons',
  async () => {
    const writer = createCrmWriter({
      sink: fixture.sink,
      redis: redis.redis,
      keyPrefix: redis.prefix,
      destination: 'sf',
      searchName: 'accounts',
    });
    await writer.prepare(mapping.target);
    const first = await writer.write(companies(30), mapping);
    expect(first).toMatchObject({ created: 30, updated: 0, rejected: 0 });

    const patches = fixture.emulator.stats.requests['PATCH composite/sobjects'];
    const second = await writer.write(companies(30), mapping);
    expect(second).toMatchObject({ created: 0, updated: 0, unchanged: 30 });
    expect(fixture.emulator.stats.requests['PATCH composite/sobjects']).toBe(patches);

    // A user edits the description in Salesforce; the next change must not overwrite it (ifEmpty).
    const c3 = fixture.emulator.state.findBy('Account', 'Prospect_Sync_Id__c', 'c3')[0]!;
    c3.Description = 'Set by sales';
    fixture.emulator.faults.rejectKeys = ['c7'];
    const third = await writer.write(
      companies(30, 'Fintech').map((c) => ({ ...c, headcount: c.headcount + 1 })),
      mapping,
    );
    expect(third).toMatchObject({ updated: 29, rejected: 1 });
    expect(fixture.emulator.state.findBy('Account', 'Prospect_Sync_Id__c', 'c3')[0]).toMatchObject({
      Description: 'Set by sales',
      NumberOfEmployees: 104,
    });
    const rejects = await createRejectStore(redis.redis, redis.prefix).list('accounts');
    expect(rejects.map((r) => [r.key, r.code])).toEqual([['c7', 'FIELD_CUSTOM_VALIDATION_EXCEPTION']]);
  },
);

test('a run above the bulk threshold goes through Bulk API 2.0 end to end', async () => {
  const writer = createCrmWriter({
    sink: fixture.sink,
    redis: redis.redis,
    keyPrefix: redis.prefix,
    destination: 'sf',
    searchName: 'accounts',
  });
  await writer.prepare(mapping.target);
  const result = await writer.write(companies(120), mapping, { runVolume: 120 });
  expect(result).toMatchObject({ created: 120, rejected: 0 });
  expect(fixture.emulator.stats.requests['POST jobs/ingest']).toBe(1);
  expect(fixture.emulator.state.all('Account')).toHaveLength(120);
});
