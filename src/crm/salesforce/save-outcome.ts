import type { CrmRecord, UpsertOutcome } from '../crm-sink.js';
import { redactReason } from '../reason-redaction.js';

/** A save result as the collections endpoint sends it: jsforce's type says `errorCode`, the wire says `statusCode`. */
export interface SaveResultLike {
  id?: string | null;
  success: boolean;
  created?: boolean;
  errors?: { statusCode?: string; errorCode?: string; message?: string; fields?: string[] }[];
}

/** Messages where Salesforce quotes the offending value (possibly truncated) after a fixed phrase. */
const VALUE_ECHO =
  /(invalid email address: |data value too large: |value not of required type: )(.*?)( \(max length=\d+\))?$/gm;

/**
 * Salesforce echoes field values in messages (e.g. the bad email, cut to 40 characters): never keep them in a reason.
 */
function redactSalesforceReason(message: string, record: CrmRecord): string {
  return redactReason(
    message.replace(
      VALUE_ECHO,
      (_m, phrase: string, _value: string, tail: string | undefined) => `${phrase}[value]${tail ?? ''}`,
    ),
    record,
  );
}

/** `fields`: the fields Salesforce named (REQUIRED_FIELD_MISSING [Company]), kept as the reject's field. */
export function rejected(record: CrmRecord, code: string, message: string, fields?: readonly string[]): UpsertOutcome {
  const field = fields
    ?.map((f) => f.trim())
    .filter((f) => f !== '')
    .join(', ');
  return {
    key: record.key,
    status: 'rejected',
    code,
    reason: redactSalesforceReason(message, record),
    ...(field ? { field } : {}),
  };
}

export function outcomeOf(record: CrmRecord, result: SaveResultLike | undefined): UpsertOutcome {
  if (!result) return rejected(record, 'NO_RESULT', 'Salesforce returned no result for this record');
  if (result.success && result.id)
    return { key: record.key, status: result.created ? 'created' : 'updated', crmId: result.id };
  const errors = result.errors ?? [];
  const code = errors[0]?.statusCode ?? errors[0]?.errorCode ?? 'UNKNOWN_ERROR';
  return rejected(
    record,
    code,
    errors.map((e) => e.message ?? e.statusCode ?? e.errorCode).join('; ') || 'rejected without a message',
    errors[0]?.fields,
  );
}

/** The per-record error Salesforce gives when a nested external-id reference names no parent. */
export function isMissingParent(outcome: UpsertOutcome): boolean {
  return (
    outcome.status === 'rejected' && outcome.code === 'INVALID_FIELD' && /Foreign key external ID/i.test(outcome.reason)
  );
}
