/**
 * What happens when a Salesforce call fails: read this file top to bottom.
 *
 * Before a call, the org's daily API share guard (api-share-guard.ts) refuses it when it would pass `maxApiShare`
 * of the daily allowance, reading `Sforce-Limit-Info: api-usage=N/M` from the org's rate governor state in Redis
 * (src/shared/rate-governor.ts, shared by every run and process). Salesforce has no per-window request rate, so
 * the governor only counts requests by outcome and keeps the daily usage. Then, by failure:
 *
 * - 5xx, 429/420, SERVER_UNAVAILABLE, UNKNOWN_EXCEPTION, REQUEST_LIMIT_EXCEEDED (concurrent), no answer (network,
 *   or no whole answer within the request deadline, salesforce-transport.ts; the login too): jittered
 *   exponential backoff (src/shared/backoff.ts), at most `attempts` attempts; then SalesforceUnavailableError.
 *   The request is always rebuilt: jsforce's own retry is never used (salesforce-transport.ts), and a failed Bulk API
 *   2.0 job is aborted and run again from job creation. Upserts by external id are idempotent, so repeating one
 *   that may have landed is safe.
 * - REQUEST_LIMIT_EXCEEDED (daily allowance): never retried; SalesforceDailyLimitError stops the run cleanly, and
 *   the org's governor refuses every process's calls with it for DAILY_PROBE_AFTER_MS before probing again.
 * - A token refresh the org refused: SalesforceAuthError (one that failed on the network is retried). Any other
 *   Salesforce refusal: SalesforceRequestError, never retried. Our own typed errors (the share guard's) pass through
 *   untouched.
 */
import { AppError } from '../../shared/app-error.js';
import { backoffDelayMs } from '../../shared/backoff.js';
import { callWithPolicy, type AttemptTally, type RetryDecision } from '../../shared/call-with-policy.js';
import { outcomeClass, type OutcomeClass } from '../../shared/rate-governor.js';
import { RemoteTimeoutError, untilAborted } from '../../shared/remote-deadline.js';
import {
  SalesforceAuthError,
  SalesforceDailyLimitError,
  SalesforceRequestError,
  SalesforceUnavailableError,
} from './salesforce-errors.js';

export interface RetryOptions {
  /** Attempts in all, the first one included. */
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryOptions = { attempts: 5, baseDelayMs: 500, maxDelayMs: 15_000 };

/** After REQUEST_LIMIT_EXCEEDED every process waits this long before one call probes the allowance again. */
export const DAILY_PROBE_AFTER_MS = 10 * 60_000;

const RETRYABLE_CODES = new Set([
  'SERVER_UNAVAILABLE',
  'UNKNOWN_EXCEPTION',
  'TOO_MANY_REQUESTS',
  'REQUEST_RUNNING_TOO_LONG',
]);
const NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ETIMEDOUT',
  'EPIPE',
  'UND_ERR_SOCKET',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * jsforce puts the Salesforce errorCode on `errorCode` (and `name`); the HTTP status is only in ERROR_HTTP_<status>.
 */
export function errorCodeOf(err: unknown): string {
  if (err instanceof RemoteTimeoutError) return 'TIMEOUT';
  const e = err as { errorCode?: unknown; name?: unknown; code?: unknown; cause?: { code?: unknown } };
  if (typeof e?.errorCode === 'string') return e.errorCode;
  if (typeof e?.cause?.code === 'string') return e.cause.code;
  if (typeof e?.code === 'string') return e.code;
  return typeof e?.name === 'string' ? e.name : 'UNKNOWN';
}

export type Verdict = 'retry' | 'daily-limit' | 'fatal';

export function classify(err: unknown): Verdict {
  if (err instanceof RemoteTimeoutError) return 'retry';
  if (err instanceof AppError) return 'fatal';
  const code = errorCodeOf(err);
  const message = err instanceof Error ? err.message : '';
  // salesforce-connection.ts's refreshFn says why a refresh failed: only a refusal is final.
  if (message.startsWith('Unable to refresh session') && message.includes('login unavailable')) return 'retry';
  if (code === 'REQUEST_LIMIT_EXCEEDED') return /concurrent/i.test(message) ? 'retry' : 'daily-limit';
  if (/^ERROR_HTTP_(429|420|5\d\d)$/.test(code) || RETRYABLE_CODES.has(code) || NETWORK_CODES.has(code)) return 'retry';
  if (err instanceof TypeError && /fetch failed|terminated/i.test(message)) return 'retry';
  return 'fatal';
}

/**
 * A non-retryable failure as our typed error: Salesforce refusals carry an errorCode; a failed refresh is an auth
 * problem.
 */
function fatalError(err: unknown): unknown {
  if (err instanceof AppError || !(err instanceof Error)) return err;
  if (err.message.startsWith('Unable to refresh session'))
    return new SalesforceAuthError('the client-credentials grant was refused on refresh', err);
  const code = (err as { errorCode?: unknown }).errorCode;
  return typeof code === 'string' ? new SalesforceRequestError(code, err.message) : err;
}

/** The `decide` of src/shared/call-with-policy.ts for Salesforce. */
export function decideSalesforce(err: unknown, tally: AttemptTally, options: RetryOptions): RetryDecision {
  const verdict = classify(err);
  if (verdict === 'daily-limit') return { retry: false, error: new SalesforceDailyLimitError({}) };
  if (verdict === 'fatal') return { retry: false, error: fatalError(err) };
  const failures = tally.add('transient');
  if (failures >= options.attempts)
    return { retry: false, error: new SalesforceUnavailableError(failures, errorCodeOf(err), err) };
  return { retry: true, kind: 'transient', delayMs: backoffDelayMs(failures, options) };
}

/** Runs `call` under the policy above; `onRetry` hears about each retry (for the log). */
export async function withRetry<T>(
  call: () => Promise<T>,
  options: RetryOptions,
  signal?: AbortSignal,
  onRetry?: (attempt: number, code: string, delayMs: number) => void,
): Promise<T> {
  return callWithPolicy(
    (err, tally) => {
      const decision = decideSalesforce(err, tally, options);
      if (decision.retry) onRetry?.(tally.of('transient'), errorCodeOf(err), decision.delayMs);
      return decision;
    },
    async () => {
      signal?.throwIfAborted();
      // jsforce takes no signal: a stopping run does not wait for the answer (each request has its own deadline).
      return untilAborted(call(), signal);
    },
    signal,
  );
}

/** The governor's outcome class of a failed call (jsforce keeps the HTTP status only in ERROR_HTTP_<status>). */
export function outcomeOfFailure(err: unknown): OutcomeClass {
  const code = errorCodeOf(err);
  const status = /^ERROR_HTTP_(\d{3})$/.exec(code)?.[1];
  if (status) return outcomeClass(Number(status));
  if (
    NETWORK_CODES.has(code) ||
    code === 'TIMEOUT' ||
    (err instanceof TypeError && /fetch failed|terminated/i.test(err.message))
  )
    return 'network';
  if (RETRYABLE_CODES.has(code)) return code === 'TOO_MANY_REQUESTS' ? '429' : '5xx';
  return '4xx';
}
