import { inLanes } from '../../shared/in-lanes.js';
import type { CrmValue, ObjectTarget } from '../crm-sink.js';
import type { SalesforceCaller } from './salesforce-caller.js';
import { spelled } from './salesforce-schema.js';
import { inQueries } from './soql-literal.js';

/**
 * Current values of `fields` of the records with these keys (SOQL `WHERE <match> IN (…)`, keys matched
 * case-insensitively), by the key as asked; `canonical` spells the field names as Salesforce does.
 */
export async function readByKey(
  caller: SalesforceCaller,
  target: ObjectTarget,
  canonical: Map<string, string>,
  keys: string[],
  fields: string[],
  lanes: number,
  signal?: AbortSignal,
): Promise<Map<string, Record<string, CrmValue>>> {
  const name = (f: string): string => spelled(canonical, f);
  const wanted = new Map(keys.map((k) => [k.toLowerCase(), k]));
  const select = [...new Set(['Id', name(target.matchField), ...fields.map(name)])];
  const out = new Map<string, Record<string, CrmValue>>();
  // The queries of one read go out in the upsert's lanes: one after another they put their latencies end to end.
  const results = await inLanes(
    inQueries(select, target.object, target.matchField, [...new Set(keys)]),
    lanes,
    (soql) => caller.call(async (conn) => await conn.query<Record<string, CrmValue>>(soql), signal),
  );
  for (const result of results) {
    for (const row of result.records) {
      const key = wanted.get(String(row[name(target.matchField)] ?? '').toLowerCase());
      if (key !== undefined) out.set(key, Object.fromEntries(fields.map((f) => [f, row[name(f)] ?? null])));
    }
  }
  return out;
}
