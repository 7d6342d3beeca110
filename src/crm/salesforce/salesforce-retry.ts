import { setTimeout as sleep } from 'node:timers/promises';
import { AppError } from '../../shared/app-error.js';
import { SalesforceAuthError, SalesforceDailyLimitError, SalesforceRequestError, SalesforceUnavailableError } from './salesforce-errors.js';

/** The one place that decides what a failed Salesforce call means: retry, stop the run, or give up. */
export interface RetryOptions {
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryOptions = { attempts: 5, baseDelayMs: 500, maxDelayMs: 15_000 };

const RETRYABLE_CODES = new Set(['SERVER_UNAVAILABLE', 'UNKNOWN_EXCEPTION', 'TOO_MANY_REQUESTS', 'REQUEST_RUNNING_TOO_LONG']);
const NETWORK_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'EPIPE', 'UND_ERR_SOCKET', 'ENOTFOUND', 'EAI_AGAIN']);

/** jsforce puts the Salesforce errorCode on `errorCode` (and `name`); the HTTP status is only in ERROR_HTTP_<status>. */
function errorCodeOf(err: unknown): string {
  const e = err as { errorCode?: unknown; name?: unknown; code?: unknown; cause?: { code?: unknown } };
  if (typeof e?.errorCode === 'string') return e.errorCode;
  if (typeof e?.cause?.code === 'string') return e.cause.code;
  if (typeof e?.code === 'string') return e.code;
  return typeof e?.name === 'string' ? e.name : 'UNKNOWN';
}

export type Verdict = 'retry' | 'daily-limit' | 'fatal';

export function classify(err: unknown): Verdict {
  const code = errorCodeOf(err);
  const message = err instanceof Error ? err.message : '';
  if (code === 'REQUEST_LIMIT_EXCEEDED') return /concurrent/i.test(message) ? 'retry' : 'daily-limit';
  if (/^ERROR_HTTP_(429|420|5\d\d)$/.test(code) || RETRYABLE_CODES.has(code) || NETWORK_CODES.has(code)) return 'retry';
  if (err instanceof TypeError && /fetch failed|terminated/i.test(message)) return 'retry';
  return 'fatal';
}

/**
 * Runs `call`, retrying transient failures with exponential backoff (half jitter). Upserts by external id are
 * idempotent, so repeating one that may have landed is safe. REQUEST_LIMIT_EXCEEDED becomes SalesforceDailyLimitError;
 * other Salesforce refusals become SalesforceRequestError; our own typed errors pass through untouched.
 */
export async function withRetry<T>(
  call: () => Promise<T>,
  options: RetryOptions,
  signal?: AbortSignal,
  onRetry?: (attempt: number, code: string, delayMs: number) => void,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    signal?.throwIfAborted();
    try {
      return await call();
    } catch (err) {
      if (signal?.aborted) throw err;
      const verdict = classify(err);
      if (verdict === 'daily-limit') throw new SalesforceDailyLimitError({});
      if (verdict === 'fatal') throw fatalError(err);
      if (attempt >= options.attempts) throw new SalesforceUnavailableError(attempt, errorCodeOf(err), err);
      const cap = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** (attempt - 1));
      const delayMs = Math.round(cap / 2 + (Math.random() * cap) / 2);
      onRetry?.(attempt, errorCodeOf(err), delayMs);
      await sleep(delayMs, undefined, signal ? { signal } : undefined);
    }
  }
}

/** A non-retryable failure as our typed error: Salesforce refusals carry an errorCode; a failed refresh is an auth problem. */
function fatalError(err: unknown): unknown {
  if (err instanceof AppError || !(err instanceof Error)) return err;
  if (err.message.startsWith('Unable to refresh session')) return new SalesforceAuthError('the client-credentials grant was refused on refresh', err);
  const code = (err as { errorCode?: unknown }).errorCode;
  return typeof code === 'string' ? new SalesforceRequestError(code, err.message) : err;
}
