import type { Connection } from 'jsforce';
import type { CrmValue } from '../crm-sink.js';
import { SalesforceRequestError, SalesforceUnavailableError } from './salesforce-errors.js';

export type BulkRow = Record<string, CrmValue>;

export interface BulkResults {
  successful: Record<string, string>[];
  failed: Record<string, string>[];
  unprocessed: Record<string, string>[];
}

/** Requests an ingest job makes besides its status polls: create, upload, close, three result downloads. */
const FIXED_JOB_REQUESTS = 6;
/** The fewest requests a job can take (fixed ones plus one status poll): what the share guard must leave room for. */
export const BULK_JOB_MIN_REQUESTS = FIXED_JOB_REQUESTS + 1;

/**
 * One Bulk API 2.0 upsert job, step by step (rather than loadAndWaitForResults) so the status polls can be counted
 * for the API-share guard. jsforce writes CSV columns from the first row's keys: every row must carry every column
 * (`''` leaves a field as it is, null becomes `#N/A` which clears it). The reads after the upload (status polls,
 * results) are retried on their own by `retryRead`, so a 5xx there does not cost a whole new job; a failed create,
 * upload or close throws and the caller's policy re-creates the job (an upload body cannot be sent twice).
 */
export async function runBulkUpsert(
  conn: Connection,
  job: { object: string; externalIdFieldName: string; rows: BulkRow[]; pollIntervalMs: number; pollTimeoutMs: number },
  countRequests: (n: number) => void,
  retryRead: <T>(read: () => Promise<T>) => Promise<T>,
): Promise<BulkResults> {
  const ingest = conn.bulk2.createJob({
    object: job.object,
    operation: 'upsert',
    externalIdFieldName: job.externalIdFieldName,
  });
  let polls = 0;
  ingest.on('inProgress', () => polls++);
  try {
    await ingest.open();
    await ingest.uploadData(job.rows);
    await ingest.close();
    await retryRead(() => ingest.poll(job.pollIntervalMs, job.pollTimeoutMs));
    const results = await retryRead(() => ingest.getAllResults());
    return {
      successful: results.successfulResults as unknown as Record<string, string>[],
      failed: results.failedResults as unknown as Record<string, string>[],
      unprocessed: results.unprocessedRecords as unknown as Record<string, string>[],
    };
  } catch (err) {
    // Stop the job server-side (a retry opens a new one), then remove it; both best effort, like jsforce's own cleanup.
    if (ingest.id)
      void ingest
        .abort()
        .catch(() => undefined)
        .finally(() => ingest.delete().catch(() => undefined));
    // A job that reached Failed/Aborted is a plain Error in jsforce: give it a Salesforce-style code.
    if (err instanceof Error && !('errorCode' in err) && /Ingest job failed|aborted/i.test(err.message)) {
      throw new SalesforceRequestError('BULK_JOB_FAILED', err.message);
    }
    // jsforce's JobPollingTimeoutError (name 'JobPollingTimeout') has no errorCode: the job did not finish in time.
    if (err instanceof Error && err.name.startsWith('JobPollingTimeout'))
      throw new SalesforceUnavailableError(1, 'BULK_POLL_TIMEOUT', err);
    throw err;
  } finally {
    countRequests(FIXED_JOB_REQUESTS + polls + 1); // +1: the poll that saw JobComplete
  }
}

/** Bulk rows carry errors as `CODE:message:fields --`. */
export function parseBulkError(text: string): { code: string; message: string; fields: string[] } {
  const i = text.indexOf(':');
  if (i <= 0) return { code: 'BULK_ROW_FAILED', message: text, fields: [] };
  // `CODE:message:Field1,Field2 --`: the fields Salesforce names come last
  const fields = (/:([^:]*)--\s*$/.exec(text)?.[1] ?? '')
    .split(',')
    .map((f) => f.trim())
    .filter((f) => f !== '');
  return { code: text.slice(0, i), message: text.slice(i + 1).replace(/:[^:]*--\s*$/, ''), fields };
}
