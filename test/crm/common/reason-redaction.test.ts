import { describe, expect, it } from 'vitest';
import { redactReason } from '../../../src/crm/reason-redaction.js';

describe('redactReason', () => {
  it('removes emails, phone numbers and the record values a CRM quotes back', () => {
    const out = redactReason(
      'invalid email jane.doe@example.com, phone +49 30 1234567 or (555) 123-4567; name Zoë Ünal',
      {
        key: 'p_1',
        properties: { firstname: 'Zoë Ünal' },
      },
    );
    expect(out).not.toMatch(/example\.com|1234567|123-4567|Zoë/);
    expect(out).toContain('[email]');
    expect(out).toContain('[phone]');
    expect(out).toContain('[value]');
  });

  it('keeps CRM record ids, which are digits inside a word, readable', () => {
    const reason = 'duplicate value found: Prospect_Sync_Id__c duplicates value on record with id: 001000000000001AAA';
    expect(redactReason(reason)).toBe(reason);
  });

  it('bounds the stored reason', () => {
    expect(redactReason('x'.repeat(2000))).toHaveLength(500);
  });
});
