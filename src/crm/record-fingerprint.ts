/**
 * A search's own record's change fingerprint (kept in the search's record state: src/crm/search-change-detector.ts):
 * what the record's CRM object holds of it, in two hashes of PRINT_CHARS base64url chars each.
 * - `base`: the mapping's identity (destination, object, match field, sorted field set, the fields passed by, the
 *   company object linked to), the company link, and every field but those passed by, present (name and value) or
 *   absent (so a field going missing is a change: the record is sent again, never a change missed).
 * - `passed`: the fields whose source is the segment a reveal-once page leaves out by design (`contacts`,
 *   src/crm/absent-paths.ts), present or absent, when the record carries any of them; otherwise none, and the stored
 *   one stays (the CRM kept those values): runs with and without contacts do not thrash.
 * 42 bits each: a changed record is taken for unchanged only when its new text hashes to the stored 42 bits, odds
 * 2^-42 (~1 in 4.4 * 10^12) per change; a hash of another record can never be compared with it (one field per key).
 */
import type { CrmRecord, ObjectTarget } from './crm-record.js';
import { hashText } from './text-hash.js';

export const PRINT_CHARS = 7;
/** Changes every stored fingerprint when the way they are made changes (a resend, never a change missed). */
const PRINT_FORM = 'fp1';
const BASE_SEED = 0x27d4eb2f;
const PASSED_SEED = 0x165667b1;

/** What a detector hashes per record: the mapping's identity and its fields, split. */
export interface PrintPlan {
  identity: string;
  base: readonly string[];
  passedBy: readonly string[];
}

export interface RecordPrint {
  base: string;
  /** Undefined: the record carries none of the fields passed by. */
  passed: string | undefined;
}

export function printPlan(destination: string, target: ObjectTarget, passedBy: readonly string[]): PrintPlan {
  const fields = [...target.fields].sort();
  const passed = fields.filter((f) => passedBy.includes(f));
  const identity = [
    PRINT_FORM,
    destination,
    target.object,
    target.matchField,
    fields,
    passed,
    target.associate ?? null,
  ];
  return { identity: JSON.stringify(identity), base: fields.filter((f) => !passed.includes(f)), passedBy: passed };
}

// A present value in a one-element array, an absent field as 0: `null` and absent stay apart.
const slot = (record: CrmRecord, field: string): unknown =>
  Object.hasOwn(record.properties, field) ? [record.properties[field]] : 0;

export function recordPrint(plan: PrintPlan, record: CrmRecord): RecordPrint {
  const base = [plan.identity, record.companyKey ?? null, plan.base.map((f) => slot(record, f))];
  const carried = plan.passedBy.some((f) => Object.hasOwn(record.properties, f));
  return {
    base: hashText(JSON.stringify(base), BASE_SEED, PRINT_CHARS),
    passed: carried
      ? hashText(JSON.stringify([plan.identity, plan.passedBy.map((f) => slot(record, f))]), PASSED_SEED, PRINT_CHARS)
      : undefined,
  };
}

/** A stored fingerprint's parts (`record-prints.lua` stores `base` then `passed`); anything else reads as none. */
export function decodePrint(stored: string): Partial<RecordPrint> {
  if (stored.length === PRINT_CHARS) return { base: stored };
  if (stored.length === 2 * PRINT_CHARS)
    return { base: stored.slice(0, PRINT_CHARS), passed: stored.slice(PRINT_CHARS) };
  return {};
}
