/**
 * Opt-outs kept in Salesforce (`suppress.crm`): the match keys (External ID) of the records where a checkbox such as
 * `HasOptedOutOfEmail` or `DoNotCall` is true, by SOQL (`WHERE <field> = true`, one query per field), page by page
 * (`nextRecordsUrl`), every page one governed call of the sink's caller (the org's governor and API share guard).
 */
import type { Connection } from 'jsforce';
import { CrmMappingConfigError } from '../errors.js';
import type { SalesforceCaller } from './salesforce-caller.js';

interface QueryPage {
  records: Record<string, unknown>[];
  done?: boolean;
  nextRecordsUrl?: string;
}

const FIELD_NAME = /^[A-Za-z][A-Za-z0-9_]*$/;

/** Pages of match keys (never empty); records without one are passed over. */
export async function* optedOutKeys(
  caller: SalesforceCaller,
  object: string,
  matchField: string,
  fields: readonly string[],
  signal?: AbortSignal,
): AsyncGenerator<string[]> {
  for (const field of fields) {
    // Names go into SOQL as they are: the preflight found each on the object; anything else is refused here.
    if (![object, matchField, field].every((n) => FIELD_NAME.test(n)))
      throw new CrmMappingConfigError(`suppress.crm: ${field} is not a Salesforce field name`, { field });
    let page = await caller.call(
      async (conn) => (await conn.query(`SELECT ${matchField} FROM ${object} WHERE ${field} = true`)) as QueryPage,
      signal,
    );
    for (;;) {
      const keys: string[] = [];
      for (const row of page.records) {
        const key = valueOf(row, matchField);
        if (typeof key === 'string' && key !== '') keys.push(key);
      }
      if (keys.length > 0) yield keys;
      if (page.done !== false || page.nextRecordsUrl === undefined) break;
      const locator = page.nextRecordsUrl.split('/').pop()!;
      page = await caller.call(async (conn: Connection) => (await conn.queryMore(locator)) as QueryPage, signal);
    }
  }
}

/** A row's value of `field`, however Salesforce spells the field's name. */
function valueOf(row: Record<string, unknown>, field: string): unknown {
  const lower = field.toLowerCase();
  for (const [name, value] of Object.entries(row)) if (name.toLowerCase() === lower) return value;
  return undefined;
}
