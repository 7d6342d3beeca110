/** A CRM's refusal as the user reads it: HubSpot's JSON detail as text with its property, Salesforce's fields kept. */
import { describe, expect, it } from 'vitest';
import { readRefusal } from '../../../src/crm/hubspot/hubspot-refusal.js';
import { parseBulkError } from '../../../src/crm/salesforce/bulk-upsert.js';
import { outcomeOf } from '../../../src/crm/salesforce/save-outcome.js';
import { groupRejects } from '../../../src/crm/index.js';

describe('reading refusals', () => {
  it("HubSpot's 'Property values were not valid: [json]' becomes property, code and text", () => {
    const message =
      'Property values were not valid: [{"isValid":false,"message":"Acme was not a valid ' +
      'number.","error":"INVALID_INTEGER","name":"numberofemployees","localizedErrorMessage":"x"},' +
      '{"isValid":false,"message":"bad","error":"INVALID_OPTION","name":"industry"}]';
    expect(readRefusal('VALIDATION_ERROR', message)).toEqual({
      code: 'INVALID_INTEGER',
      field: 'numberofemployees',
      reason:
        'Property values were not valid: numberofemployees: Acme was not a valid number. (INVALID_INTEGER); ' +
        'industry: bad (INVALID_OPTION)',
    });
    // anything else stays as HubSpot wrote it
    expect(readRefusal('CONFLICT', 'A record with this domain already exists. Existing ID: 7')).toEqual({
      code: 'CONFLICT',
      reason: 'A record with this domain already exists. Existing ID: 7',
    });
    expect(readRefusal('X', 'broken: [not json')).toEqual({ code: 'X', reason: 'broken: [not json' });
  });

  it("Salesforce: the fields a save result or a Bulk API row names are the reject's field", () => {
    expect(parseBulkError('REQUIRED_FIELD_MISSING:Required fields are missing: [Company]:Company --')).toEqual({
      code: 'REQUIRED_FIELD_MISSING',
      message: 'Required fields are missing: [Company]',
      fields: ['Company'],
    });
    expect(parseBulkError('garbage')).toEqual({ code: 'BULK_ROW_FAILED', message: 'garbage', fields: [] });
    const record = { key: 'p1', properties: { LastName: 'Doe' } };
    expect(
      outcomeOf(record, {
        success: false,
        errors: [
          {
            statusCode: 'REQUIRED_FIELD_MISSING',
            message: 'Required fields are missing: [Company]',
            fields: ['Company'],
          },
        ],
      }),
    ).toEqual({
      key: 'p1',
      status: 'rejected',
      code: 'REQUIRED_FIELD_MISSING',
      reason: 'Required fields are missing: [Company]',
      field: 'Company',
    });
  });

  it('groups by code and field, largest first, one example each, bounded', () => {
    const refused = [
      { code: 'A', field: 'x', reason: 'a1' },
      { code: 'B', reason: 'b1' },
      { code: 'A', field: 'x', reason: 'a2' },
      { code: 'A', field: 'y', reason: 'ay' },
      { code: 'B', reason: 'b2' },
      { code: 'A', field: 'x', reason: 'a3' },
    ];
    expect(groupRejects(refused)).toEqual([
      { code: 'A', field: 'x', count: 3, example: 'a1' },
      { code: 'B', count: 2, example: 'b1' },
      { code: 'A', field: 'y', count: 1, example: 'ay' },
    ]);
    expect(groupRejects(refused, 2)).toEqual([
      { code: 'A', field: 'x', count: 3, example: 'a1' },
      { code: 'B', count: 2, example: 'b1' },
    ]);
  });
});
