import type { CrmRecord, ObjectTarget, UpsertOutcome } from '../crm-sink.js';
import { BULK_JOB_MIN_REQUESTS, parseBulkError, runBulkUpsert, type BulkRow } from './bulk-upsert.js';
import type { SalesforceCaller } from './salesforce-caller.js';
import type { Link } from './salesforce-links.js';
import { rejected } from './save-outcome.js';

export interface BulkPolling {
  pollIntervalMs: number;
  pollTimeoutMs: number;
}

/** Records as Bulk API 2.0 CSV rows: every row carries every column (and the link column when any record links). */
function bulkRows(target: ObjectTarget, records: CrmRecord[], link: Link | undefined): BulkRow[] {
  const linkColumn = link && records.some((r) => r.companyKey) ? `${link.relationship}.${link.field}` : undefined;
  const columns = [...new Set(records.flatMap((r) => Object.keys(r.properties)))].filter(
    (c) => c.toLowerCase() !== target.matchField.toLowerCase(),
  );
  return records.map((r) => {
    const row: BulkRow = { [target.matchField]: r.key };
    // In CSV an empty cell means "leave as is": absent properties stay empty, empty strings clear the field (#N/A) as
    // in JSON.
    for (const c of columns) row[c] = c in r.properties ? (r.properties[c] === '' ? null : r.properties[c]!) : '';
    if (linkColumn) row[linkColumn] = r.companyKey ?? '';
    return row;
  });
}

/**
 * One Bulk API 2.0 upsert job for `records` (bulk-upsert.ts runs it), its result sets mapped back to one outcome per
 * record in input order; a record in neither set is rejected `BULK_UNPROCESSED`.
 */
export async function upsertBulk(
  caller: SalesforceCaller,
  target: ObjectTarget,
  records: CrmRecord[],
  link: Link | undefined,
  polling: BulkPolling,
  signal?: AbortSignal,
): Promise<UpsertOutcome[]> {
  const rows = bulkRows(target, records, link);
  const results = await caller.call(
    (conn) =>
      runBulkUpsert(
        conn,
        {
          object: target.object,
          externalIdFieldName: target.matchField,
          rows,
          ...polling,
        },
        (n) => caller.countRequests(n),
        (read) => caller.retryRead(read, signal),
      ),
    signal,
    BULK_JOB_MIN_REQUESTS,
  );
  // Results are not in input order: map them back by external id (case-insensitive, as Salesforce matches).
  const byKey = new Map<string, UpsertOutcome[]>();
  const push = (key: string, outcome: UpsertOutcome): void => {
    const list = byKey.get(key.toLowerCase()) ?? [];
    list.push(outcome);
    byKey.set(key.toLowerCase(), list);
  };
  const recordByKey = new Map(records.map((r) => [r.key.toLowerCase(), r]));
  for (const row of results.successful) {
    const key = row[target.matchField] ?? '';
    push(key, { key, status: row.sf__Created === 'true' ? 'created' : 'updated', crmId: row.sf__Id ?? '' });
  }
  for (const row of results.failed) {
    const key = row[target.matchField] ?? '';
    const { code, message, fields } = parseBulkError(row.sf__Error ?? '');
    const record = recordByKey.get(key.toLowerCase()) ?? { key, properties: {} };
    push(key, rejected(record, code, message, fields));
  }
  return records.map((record) => {
    const outcome = byKey.get(record.key.toLowerCase())?.shift();
    return outcome
      ? { ...outcome, key: record.key }
      : rejected(
          record,
          'BULK_UNPROCESSED',
          'Salesforce did not process this record in the Bulk API job; it will be retried',
        );
  });
}
