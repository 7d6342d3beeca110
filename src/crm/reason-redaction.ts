import type { CrmRecord } from './crm-sink.js';

const EMAIL = /[^\s@"'<>]+@[^\s@"'<>]+\.[^\s@"'<>]+/g;
// Not inside a word: a Salesforce record id (001000000000001AAA) is not a phone number.
const PHONE = /(?<![\w+(])[+(]?\d[\d\s().-]{6,}\d(?!\w)/g;

/** CRM error messages often quote the offending value (an email, a phone): strip the record's values before storing. */
export function redactReason(reason: string, record?: CrmRecord): string {
  let out = reason;
  if (record !== undefined) {
    const values = Object.values(record.properties)
      .filter((v): v is string => typeof v === 'string' && v.length >= 3)
      .sort((a, b) => b.length - a.length);
    for (const value of values) out = out.split(value).join('[value]');
  }
  return out.replace(EMAIL, '[email]').replace(PHONE, '[phone]').slice(0, 500);
}
