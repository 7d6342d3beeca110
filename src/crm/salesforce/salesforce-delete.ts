/**
 * Deleting records by match key (`onLeave: archive`; Salesforce keeps them in the Recycle Bin for 15 days): the keys
 * are read to Ids by the External ID field, then deleted by sObject Collections (`DELETE composite/sobjects?ids=`,
 * `allOrNone=false`, at most 200 ids a call). Each id has its own result, in the order asked; an id already deleted
 * (ENTITY_IS_DELETED) or unknown to the org (INVALID_CROSS_REFERENCE_KEY) means the record is gone: `missing`.
 */
import { chunks } from '../chunks.js';
import type { ArchiveResult, CrmValue, ObjectTarget } from '../crm-sink.js';
import { redactReason } from '../reason-redaction.js';
import type { SalesforceCaller } from './salesforce-caller.js';
import { COLLECTION_SIZE } from './salesforce-collections.js';
import { readByKey } from './salesforce-read.js';
import type { SaveResultLike } from './save-outcome.js';

/** Per-id codes that say the record is not there (any more). */
const GONE = new Set(['ENTITY_IS_DELETED', 'INVALID_CROSS_REFERENCE_KEY']);

export async function deleteByKey(
  caller: SalesforceCaller,
  target: ObjectTarget,
  canonical: Map<string, string>,
  keys: readonly string[],
  lanes: number,
  signal?: AbortSignal,
): Promise<ArchiveResult> {
  const found = await readByKey(caller, target, canonical, [...new Set(keys)], ['Id'], lanes, signal);
  const result: ArchiveResult = { archived: [], missing: keys.filter((k) => !found.has(k)), refused: [] };
  const ids = [...found].map(([key, row]): [string, CrmValue] => [key, row.Id ?? null]);
  for (const part of chunks(ids, COLLECTION_SIZE)) {
    const query = `ids=${part.map(([, id]) => encodeURIComponent(String(id))).join(',')}&allOrNone=false`;
    const answers = await caller.call(
      (conn) => conn.request<SaveResultLike[]>({ method: 'DELETE', url: `/composite/sobjects?${query}` }),
      signal,
    );
    part.forEach(([key], i) => {
      const answer = answers[i];
      const code = answer?.errors?.[0]?.statusCode ?? answer?.errors?.[0]?.errorCode;
      if (answer?.success === true) result.archived.push(key);
      else if (code !== undefined && GONE.has(code)) result.missing.push(key);
      else {
        result.refused.push(key);
        result.reason ??= redactReason(
          `${code ?? 'NO_RESULT'}: ` +
            `${answer?.errors?.map((e) => e.message).join('; ') ?? 'Salesforce returned no result for this record'}`,
        );
      }
    });
  }
  return result;
}
