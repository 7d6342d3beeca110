import type { RejectRule, SfRecord, SfRecordError } from './record-store.js';

/** Fault injection, mutable while the emulator runs (tests flip switches between calls). */
export interface SalesforceFaults {
  /** Added to every API response. */
  latencyMs?: number;
  /** Status codes answered, one per request, before anything else (e.g. [503, 429]); consumed in order. */
  sequence?: number[];
  /** Share (0..1) of API requests answered with `status` (default 503); deterministic pseudo-random. */
  errorShare?: number;
  status?: number;
  /** Records whose external id is listed are refused with `rejectCode` (default FIELD_CUSTOM_VALIDATION_EXCEPTION). */
  rejectKeys?: string[];
  rejectCode?: string;
  /** Records whose external id is listed are refused deletes (DELETE_FAILED, as for a record other records need). */
  undeletableKeys?: string[];
  /** Full control: refuse any record this returns an error for. */
  reject?: RejectRule;
  /**
   * Answer the next `times` requests of one route (the stats label, e.g. `PUT jobs/ingest/{id}/batches`, the Bulk
   * API 2.0 CSV upload) with `status`.
   */
  routeFailures?: { route: string; status: number; times: number };
  /**
   * The next `times` requests of one route (the stats label, e.g. `PATCH composite/sobjects`, `POST oauth2/token`;
   * any route when absent) are read and never answered: the connection stays open until the client gives up.
   */
  hang?: { route?: string; times: number };
  /** Requests hung so far (set by the emulator). */
  hung?: number;
}

/** Whether this request's route is to hang (and counts it). */
export function hangs(faults: SalesforceFaults, route: string): boolean {
  const h = faults.hang;
  if (!h || h.times <= 0 || (h.route !== undefined && h.route !== route)) return false;
  h.times -= 1;
  faults.hung = (faults.hung ?? 0) + 1;
  return true;
}

/** The status a `routeFailures` fault injects for this request's route (and counts it), or undefined. */
export function routeFault(faults: SalesforceFaults, route: string): number | undefined {
  const f = faults.routeFailures;
  if (!f || f.route !== route || f.times <= 0) return undefined;
  f.times -= 1;
  return f.status;
}

/** The body Salesforce-like servers send with each injected status. */
export function faultBody(status: number): { contentType: string; body: string } {
  if (status === 429) return { contentType: 'text/plain', body: 'Too Many Requests' };
  if (status === 503) return json([{ message: 'Server is temporarily unavailable', errorCode: 'SERVER_UNAVAILABLE' }]);
  if (status === 500)
    return json([
      {
        message: 'An unexpected error occurred. Please include this ErrorId if you contact support',
        errorCode: 'UNKNOWN_EXCEPTION',
      },
    ]);
  return { contentType: 'text/html', body: `<html><body>${status} Bad Gateway</body></html>` };
}

function json(value: unknown): { contentType: string; body: string } {
  return { contentType: 'application/json;charset=UTF-8', body: JSON.stringify(value) };
}

/** The reject rule the current fault settings describe. */
export function rejectRule(faults: SalesforceFaults): RejectRule | undefined {
  if (faults.reject) return faults.reject;
  const keys = faults.rejectKeys;
  if (!keys || keys.length === 0) return undefined;
  const set = new Set(keys);
  const code = faults.rejectCode ?? 'FIELD_CUSTOM_VALIDATION_EXCEPTION';
  return (_object, externalId) =>
    set.has(externalId)
      ? { statusCode: code, message: `Record refused by a validation rule (${code})`, fields: [] }
      : undefined;
}

/** The delete refusal the current fault settings give this record, if any. */
export function deleteRefusal(faults: SalesforceFaults, record: SfRecord): SfRecordError | undefined {
  const keys = new Set(faults.undeletableKeys ?? []);
  if (!Object.values(record).some((v) => typeof v === 'string' && keys.has(v))) return undefined;
  return {
    statusCode: 'DELETE_FAILED',
    message: 'Your attempt to delete this record could not be completed because it is associated with other records',
    fields: [],
  };
}

/** A small seeded generator so an error share gives the same pattern on every run. */
export function seededRandom(seed = 42): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}
