/**
 * The Salesforce preflight through the real jsforce sink against the emulator's describe: what it refuses (missing,
 * read-only, mistyped, required without a mapping, not updateable unless written on create only), what it lets
 * pass (required but defaulted on create), and its per-process cache (a pass is kept, a failure is not).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileFieldMapping, type FieldMappingConfig } from '../../../src/crm/field-mapping.js';
import { CrmPreflightError } from '../../../src/crm/preflight-error.js';
import { defaultSchema, type SfSchema } from '../../../src/emulators/salesforce/salesforce-schema.js';
import { sfFixture } from './sf-fixture.js';

/** The default org plus a read-only field on Account and Lead's required-but-defaulted Status. */
function schema(): SfSchema {
  const s = defaultSchema();
  s.Account!.fields.push({ name: 'Locked__c', type: 'string', length: 80, readOnly: true });
  s.Lead!.fields.push({ name: 'Status', type: 'string', length: 40, required: true, defaultedOnCreate: true });
  return s;
}

let fx: Awaited<ReturnType<typeof sfFixture>>;
beforeAll(async () => {
  fx = await sfFixture({ objects: schema() });
});
afterAll(async () => fx?.close());

const mapping = (object: string, fields: FieldMappingConfig['fields']) =>
  compileFieldMapping({ matchOn: { field: 'Prospect_Sync_Id__c', from: 'id' }, fields }, { object });
const describes = (): number => fx.emulator.stats.requests['GET sobjects/describe'] ?? 0;

describe('Salesforce preflight', () => {
  it('names every field the org cannot take, at once', async () => {
    const error = await fx.sink
      .preflight(
        mapping('Account', {
          Name: 'name',
          NumberOfEmployees: { value: 'many' },
          Locked__c: 'domain',
          Missing__c: 'id2',
          Website: { from: 'domain', transform: 'number' },
        }),
      )
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CrmPreflightError);
    expect((error as CrmPreflightError).code).toBe('crm_schema_mismatch');
    expect((error as CrmPreflightError).problems.map((p) => [p.at, p.field])).toEqual([
      ['fields', 'NumberOfEmployees'],
      ['fields', 'Locked__c'],
      ['fields', 'Missing__c'],
    ]);
    expect((error as Error).message).toContain(
      'field Account.NumberOfEmployees is of type int; the constant "many" does not fit it',
    );
    expect((error as Error).message).toContain('field Account.Locked__c is not createable');
  });

  it('a required field defaulted on create needs no mapping; one that is not does', async () => {
    await expect(
      fx.sink.preflight(mapping('Lead', { LastName: 'lastName', Company: { value: 'Unknown' } })),
    ).resolves.toBeUndefined();
    const error = await fx.sink.preflight(mapping('Lead', { Company: { value: 'Unknown' } })).catch((e: unknown) => e);
    expect((error as CrmPreflightError).problems).toEqual([
      {
        at: 'object',
        field: 'LastName',
        message:
          'field Lead.LastName is required on create and has no mapping: map it or give it a constant ({value: ...})',
      },
    ]);
  });

  it('keeps a pass for the process (no describe again), never a failure', async () => {
    const good = mapping('Contact', { LastName: 'lastName', Title: 'jobTitle' });
    await fx.sink.preflight(good);
    const before = describes();
    await fx.sink.preflight(good);
    expect(describes()).toBe(before);
    const bad = mapping('Contact', { LastName: 'lastName', Nope__c: 'x' });
    await expect(fx.sink.preflight(bad)).rejects.toBeInstanceOf(CrmPreflightError);
    await expect(fx.sink.preflight(bad)).rejects.toBeInstanceOf(CrmPreflightError);
    expect(describes()).toBe(before + 2);
  });
});
