import type { CrmRecord, UpsertOutcome } from '../crm-sink.js';
import { redactReason } from '../reason-redaction.js';
import { readRefusal } from './hubspot-refusal.js';

interface ResultLike {
  id: string;
  properties: Record<string, string | null>;
  /** Wire name `new` (the typed client's `_new`): the upsert created the object. */
  new?: boolean;
}

interface ErrorLike {
  category?: string;
  subCategory?: unknown;
  message?: string;
  context?: Record<string, string[]>;
  errors?: { code?: string }[];
}

export interface BatchAnswerLike {
  results?: ResultLike[];
  errors?: ErrorLike[];
}

function codeOf(error: ErrorLike): string {
  const detail = error.errors?.find((e) => typeof e.code === 'string')?.code;
  if (detail !== undefined) return detail;
  if (typeof error.subCategory === 'string') return error.subCategory;
  return error.category ?? 'HUBSPOT_ERROR';
}

/** A refused record: HubSpot's JSON detail read as property, code and text (hubspot-refusal.ts), then redacted. */
export function rejectedOutcome(record: CrmRecord, code: string, message: string): UpsertOutcome {
  const refusal = readRefusal(code, message);
  return {
    key: record.key,
    status: 'rejected',
    code: refusal.code,
    reason: redactReason(refusal.reason, record),
    ...(refusal.field ? { field: refusal.field } : {}),
  };
}

/** Reads a 200/207 upsert answer record by record: results by the match property, errors by `context.ids`. */
export function upsertOutcomes(records: CrmRecord[], matchField: string, answer: BatchAnswerLike): UpsertOutcome[] {
  const byKey = new Map<string, ResultLike>();
  for (const r of answer.results ?? []) {
    const key = r.properties[matchField];
    if (typeof key === 'string') byKey.set(key, r);
  }
  const errorsByKey = new Map<string, ErrorLike>();
  for (const e of answer.errors ?? []) for (const id of e.context?.ids ?? []) errorsByKey.set(id, e);
  return records.map((record) => {
    const result = byKey.get(record.key);
    if (result !== undefined)
      return { key: record.key, status: result.new === true ? 'created' : 'updated', crmId: result.id };
    const error = errorsByKey.get(record.key);
    if (error !== undefined) return rejectedOutcome(record, codeOf(error), error.message ?? 'rejected by HubSpot');
    return rejectedOutcome(record, 'no_result', 'HubSpot returned neither a result nor an error for this record');
  });
}
