import type { CrmRecord, CrmValue, UpsertOutcome } from '../crm-sink.js';
import { CrmSchemaError } from '../errors.js';
import type { HubSpotCaller } from './hubspot-caller.js';
import { rejectedOutcome, upsertOutcomes } from './hubspot-outcomes.js';
import { asApiError } from './hubspot-retry.js';

/** HubSpot stores strings; null clears a value. */
function wireValue(value: CrmValue): string {
  return value === null ? '' : String(value);
}

function inputsOf(records: CrmRecord[], matchField: string): { id: string; idProperty: string; properties: Record<string, string> }[] {
  return records.map((r) => ({
    id: r.key,
    idProperty: matchField,
    // The match value is also sent as a property so each result can be matched back to its record.
    properties: { ...Object.fromEntries(Object.entries(r.properties).map(([k, v]) => [k, wireValue(v)])), [matchField]: r.key },
  }));
}

/**
 * Upserts ≤ 100 records. A 400/409 that fails the whole batch is split in halves until the bad records stand
 * alone and are rejected with HubSpot's reason; the others are written. 207 answers are read record by record.
 */
export async function upsertBatch(caller: HubSpotCaller, object: string, matchField: string, records: CrmRecord[], signal?: AbortSignal): Promise<UpsertOutcome[]> {
  if (records.length === 0) return [];
  try {
    const answer = await caller.call((c) => c.crm.objects.batchApi.upsertWithHttpInfo(object, { inputs: inputsOf(records, matchField) }), signal);
    return upsertOutcomes(records, matchField, answer);
  } catch (err) {
    const api = asApiError(err);
    if (api === undefined || (api.code !== 400 && api.code !== 409)) throw err;
    const message = api.body?.message ?? `HTTP ${api.code}`;
    if (/non-unique/i.test(message)) throw new CrmSchemaError(`HubSpot: ${message}`, { object, property: matchField });
    if (records.length === 1) {
      const [record] = records as [CrmRecord];
      const code = typeof api.body?.subCategory === 'string' ? api.body.subCategory : (api.body?.category ?? `HTTP_${api.code}`);
      return [rejectedOutcome(record, code, message)];
    }
    const half = Math.ceil(records.length / 2);
    const left = await upsertBatch(caller, object, matchField, records.slice(0, half), signal);
    const right = await upsertBatch(caller, object, matchField, records.slice(half), signal);
    return [...left, ...right];
  }
}
