/**
 * Dates as the CRM wants them (issue 34, item 6): `$now` lands in a field holding days (HubSpot or Salesforce `date`)
 * as its UTC day, in a `datetime` as the instant; a constant with a time of day for a date field is refused by the
 * preflight. Real clients against the emulators, which refuse a time in a date field as the CRMs do.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { compileFieldMapping, type FieldMappingConfig } from '../../../src/crm/field-mapping.js';
import { applyLeaveFields } from '../../../src/crm/leave-fields.js';
import { CrmPreflightError } from '../../../src/crm/preflight-error.js';
import type { CrmSink, CrmValue, ObjectTarget } from '../../../src/crm/crm-sink.js';
import { defaultSchema } from '../../../src/emulators/salesforce/salesforce-schema.js';
import { useHubSpot } from '../hubspot/hubspot-fixture.js';
import { sfFixture } from '../salesforce/sf-fixture.js';
import type { Redis } from 'ioredis';

const NOW = new Date('2026-11-27T19:37:01.883Z');

function leave(sink: CrmSink, target: ObjectTarget, setFields: Record<string, CrmValue>, redis: Redis, prefix: string) {
  const hashes = { redis, keyPrefix: prefix, destination: 'crm', instance: 'test', search: 'dach' };
  return applyLeaveFields({ sink, target, keys: ['k1'], setFields, hashes, now: NOW });
}

describe('HubSpot: date and datetime properties', () => {
  const setup = useHubSpot();
  const target: ObjectTarget = { object: 'companies', matchField: 'prospect_sync_id', fields: [] };
  const mapping = (fields: FieldMappingConfig['fields'], setOnLeave?: Record<string, CrmValue>) =>
    compileFieldMapping(
      { matchOn: { field: 'prospect_sync_id', from: 'id' }, fields, ...(setOnLeave ? { setOnLeave } : {}) },
      { object: 'companies' },
    );

  async function withDateProperties() {
    const fx = await setup();
    for (const [name, type] of [
      ['left_on', 'date'],
      ['left_at', 'datetime'],
    ] as const) {
      const res = await fetch(`${fx.emu.url}/crm/v3/properties/companies`, {
        method: 'POST',
        headers: { authorization: 'Bearer hubspot-emulator-token', 'content-type': 'application/json' },
        body: JSON.stringify({ name, label: name, type, fieldType: type, groupName: 'companyinformation' }),
      });
      expect(res.status).toBe(201);
    }
    await fx.sink.prepare(target);
    return fx;
  }

  it('$now lands in a date property as midnight UTC of its day, in a datetime property as the instant', async () => {
    const { emu, sink, redis, keyPrefix } = await withDateProperties();
    const result = await leave(sink, target, { left_on: '$now', left_at: '$now' }, redis, keyPrefix);
    expect(result).toEqual({ acted: ['k1'], refused: 0 });
    expect(emu.state.find('companies', 'prospect_sync_id', 'k1')?.properties).toMatchObject({
      left_on: '2026-11-27',
      left_at: '2026-11-27T19:37:01.883Z',
    });
  });

  it('the preflight refuses a constant with a time for a date property, at its field; a day passes', async () => {
    const { sink } = await withDateProperties();
    const error = await sink
      .preflight(mapping({ left_on: { value: '2026-11-27T10:00:00Z' }, left_at: { value: 1_764_237_600_000 } }))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CrmPreflightError);
    expect((error as CrmPreflightError).problems).toEqual([
      {
        at: 'fields',
        field: 'left_on',
        message:
          'property companies.left_on is of type date; the constant "2026-11-27T10:00:00Z" does not fit it ' +
          '(a date field holds a day: YYYY-MM-DD, or epoch milliseconds at midnight UTC)',
      },
    ]);
    const late = await sink
      .preflight(mapping({ name: 'name' }, { left_on: 1_764_237_600_000 }))
      .catch((e: unknown) => e);
    expect((late as CrmPreflightError).problems.map((p) => [p.at, p.field])).toEqual([['onLeave', 'left_on']]);
    await expect(
      sink.preflight(
        mapping({ left_on: { value: '2026-11-27' }, left_at: { value: '2026-11-27T10:00:00Z' } }, { left_on: '$now' }),
      ),
    ).resolves.toBeUndefined();
    await expect(sink.preflight(mapping({ left_on: { value: Date.UTC(2026, 10, 27) } }))).resolves.toBeUndefined();
  });

  it(
    'a mapping changed within the preflight cache is checked again: a passing constant then a refused ' + 'one',
    async () => {
      const { sink } = await withDateProperties();
      await expect(sink.preflight(mapping({ left_on: { value: Date.UTC(2026, 10, 27) } }))).resolves.toBeUndefined();
      const changed = sink.preflight(mapping({ left_on: { value: Date.UTC(2026, 10, 27, 10) } }));
      await expect(changed).rejects.toBeInstanceOf(CrmPreflightError);
      await expect(sink.preflight(mapping({ name: 'name' }, { left_on: '2026-11-27' }))).resolves.toBeUndefined();
      await expect(sink.preflight(mapping({ name: 'name' }, { left_on: '2026-11-27T10:00' }))).rejects.toBeInstanceOf(
        CrmPreflightError,
      );
    },
  );
});

describe('Salesforce: date and datetime fields', () => {
  const schema = defaultSchema();
  schema.Account!.fields.push({ name: 'Left_On__c', type: 'date' }, { name: 'Left_At__c', type: 'datetime' });
  const fx = sfFixture({ objects: schema });
  afterAll(async () => (await fx).close());
  const target: ObjectTarget = { object: 'Account', matchField: 'Prospect_Sync_Id__c', fields: [] };

  it('$now lands in a date field as YYYY-MM-DD, in a datetime field as the instant', async () => {
    const { sink, emulator, redis, keyPrefix } = await fx;
    const first = { key: 'k1', properties: { Name: 'Acme' } };
    expect((await sink.upsert({ ...target, fields: ['Name'] }, [first]))[0]?.status).toBe('created');
    const result = await leave(sink, target, { Left_On__c: '$now', Left_At__c: '$now' }, redis, keyPrefix);
    expect(result).toEqual({ acted: ['k1'], refused: 0 });
    expect(emulator.state.all('Account')[0]).toMatchObject({
      Left_On__c: '2026-11-27',
      Left_At__c: '2026-11-27T19:37:01.883Z',
    });
  });

  it('the preflight refuses a constant with a time of day for a date field', async () => {
    const { sink } = await fx;
    const mapping = compileFieldMapping(
      {
        matchOn: { field: 'Prospect_Sync_Id__c', from: 'id' },
        fields: { Name: 'name', Left_On__c: { value: '2026-11-27 10:00' }, Left_At__c: { value: '2026-11-27 10:00' } },
      },
      { object: 'Account' },
    );
    const error = await sink.preflight(mapping).catch((e: unknown) => e);
    expect((error as CrmPreflightError).problems.map((p) => [p.at, p.field])).toEqual([['fields', 'Left_On__c']]);
  });
});
