/**
 * The exact CRM state a run must leave: every expected record once with its expected values, nothing else. The
 * expectation is computed from the records the Sales-Intelligence emulator serves (an independent walk), the actual
 * state read straight from the CRM emulator's store, and the difference returned so a failure names what is wrong.
 */
import type { HubSpotEmulator } from '../../src/emulators/hubspot/index.js';
import type { SalesforceEmulator } from '../../src/emulators/salesforce/index.js';

/** One CRM object as stored: its match key and the values of the mapped fields. */
export interface CrmRow {
  key: string;
  values: Record<string, unknown>;
}

export interface CrmDiff {
  /** Expected keys with no CRM object. */
  missing: string[];
  /** CRM objects whose key is not expected (or has no key). */
  extra: string[];
  /** Keys held by more than one CRM object. */
  duplicates: string[];
  /** Fields whose stored value differs from the expected one (first 20). */
  wrong: { key: string; field: string; expected: string; actual: string }[];
}

export const NO_DIFF: CrmDiff = { missing: [], extra: [], duplicates: [], wrong: [] };

/**
 * Expected values per key: `fields` maps CRM field -> source field; values as the sinks send them (String, null -> '').
 */
export function expectedRows(
  records: Record<string, unknown>[],
  keyFrom: string,
  fields: Record<string, string>,
): Map<string, Record<string, string>> {
  const out = new Map<string, Record<string, string>>();
  for (const r of records) {
    const values: Record<string, string> = {};
    for (const [crmField, from] of Object.entries(fields))
      values[crmField] = r[from] === null || r[from] === undefined ? '' : String(r[from]);
    out.set(String(r[keyFrom]), values);
  }
  return out;
}

export function diffCrmState(actual: CrmRow[], expected: Map<string, Record<string, string>>): CrmDiff {
  const seen = new Map<string, number>();
  const diff: CrmDiff = { missing: [], extra: [], duplicates: [], wrong: [] };
  for (const row of actual) {
    seen.set(row.key, (seen.get(row.key) ?? 0) + 1);
    const want = expected.get(row.key);
    if (!want) {
      diff.extra.push(row.key);
      continue;
    }
    for (const [field, value] of Object.entries(want)) {
      const got = row.values[field] === null || row.values[field] === undefined ? '' : String(row.values[field]);
      if (got !== value && diff.wrong.length < 20)
        diff.wrong.push({ key: row.key, field, expected: value, actual: got });
    }
  }
  for (const [key, n] of seen) if (n > 1) diff.duplicates.push(key);
  for (const key of expected.keys()) if (!seen.has(key)) diff.missing.push(key);
  for (const list of [diff.missing, diff.extra, diff.duplicates]) list.sort();
  return diff;
}

/** Every object of `type` in the HubSpot emulator: key = `matchProperty`, values = `fields`. */
export function hubspotRows(hubspot: HubSpotEmulator, type: string, matchProperty: string, fields: string[]): CrmRow[] {
  const table = hubspot.state.tables.get(type);
  return [...(table?.objects.values() ?? [])].map((o) => ({
    key: o.properties[matchProperty] ?? '',
    values: Object.fromEntries(fields.map((f) => [f, o.properties[f]])),
  }));
}

/** Every record of `object` in the Salesforce emulator: key = `externalIdField`, values = `fields`. */
export function salesforceRows(
  sf: SalesforceEmulator,
  object: string,
  externalIdField: string,
  fields: string[],
): CrmRow[] {
  return sf.state.all(object).map((r) => ({
    key: r[externalIdField] === null || r[externalIdField] === undefined ? '' : String(r[externalIdField]),
    values: Object.fromEntries(fields.map((f) => [f, r[f]])),
  }));
}
