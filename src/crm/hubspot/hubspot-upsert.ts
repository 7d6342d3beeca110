import type { CrmRecord, CrmValue, UpsertOutcome } from '../crm-sink.js';
import type { HubSpotCaller } from './hubspot-caller.js';
import { refusalError, schemaProblem } from './hubspot-errors.js';
import { hubspotJson } from './hubspot-json-request.js';
import { rejectedOutcome, upsertOutcomes, type BatchAnswerLike } from './hubspot-outcomes.js';
import type { HubSpotApiError } from './hubspot-call-policy.js';

/** What the typed `batchApi.upsert` accepts (spec codes); any other status is thrown. */
const UPSERT_ACCEPTED = [200, 207] as const;

/** HubSpot stores strings; null clears a value. */
function wireValue(value: CrmValue): string {
  return value === null ? '' : String(value);
}

function inputsOf(
  records: CrmRecord[],
  matchField: string,
): { id: string; idProperty: string; properties: Record<string, string> }[] {
  return records.map((r) => {
    // A plain loop: entries/fromEntries built two arrays per field of every record.
    const properties: Record<string, string> = {};
    for (const k of Object.keys(r.properties)) properties[k] = wireValue(r.properties[k] ?? null);
    // The match value is also sent as a property so each result can be matched back to its record.
    properties[matchField] = r.key;
    return { id: r.key, idProperty: matchField, properties };
  });
}

/** A whole-batch refusal that one record can cause (invalid value, duplicate, conflict): worth splitting. */
function splittable(api: HubSpotApiError): boolean {
  return (api.code === 400 || api.code === 409) && schemaProblem(api) === undefined;
}

/**
 * Upserts ≤ 100 records. A 400/409 that fails the whole batch for a record's sake is split in halves until the bad
 * records stand alone and are rejected with HubSpot's reason; the others are written. A schema refusal (property
 * deleted after prepare, match property gone or not unique) stops at once: every record would fail. 207 answers
 * are read record by record.
 */
export async function upsertBatch(
  caller: HubSpotCaller,
  object: string,
  matchField: string,
  records: CrmRecord[],
  signal?: AbortSignal,
): Promise<UpsertOutcome[]> {
  if (records.length === 0) return [];
  const path = `/crm/v3/objects/${encodeURIComponent(object)}/batch/upsert`;
  const answer = await caller.attempt(
    (c, attempt) =>
      hubspotJson<BatchAnswerLike>(
        c,
        'POST',
        path,
        { inputs: inputsOf(records, matchField) },
        UPSERT_ACCEPTED,
        attempt,
      ),
    signal,
  );
  if ('data' in answer) return upsertOutcomes(records, matchField, answer.data);
  const api = answer.refusal;
  if (!splittable(api)) throw refusalError(api, { operation: 'batch upsert', object }, records);
  if (records.length === 1) {
    const [record] = records as [CrmRecord];
    const code =
      typeof api.body?.subCategory === 'string' ? api.body.subCategory : (api.body?.category ?? `HTTP_${api.code}`);
    return [rejectedOutcome(record, code, api.body?.message ?? `HTTP ${api.code}`)];
  }
  const half = Math.ceil(records.length / 2);
  const left = await upsertBatch(caller, object, matchField, records.slice(0, half), signal);
  const right = await upsertBatch(caller, object, matchField, records.slice(half), signal);
  return [...left, ...right];
}
