import { crmLimitCodes } from '../../src/crm/destinations.js';
import { AppError } from '../../src/shared/app-error.js';
import { redact } from '../../src/shared/redact.js';
import { isRedisUnavailable } from '../../src/shared/redis-connection-error.js';

/** The run was stopped from outside (shutdown, lost run lock) after checkpointing its last accepted batch. */
export class RunAbortedError extends AppError {
  constructor(search: string) {
    super('run_aborted', `the run of '${search}' was stopped before its end; it resumes from its checkpoint`);
  }
}

/**
 * A CRM allowance used up (a daily request limit, or our own cap on a share of it; each CRM's port lists its codes,
 * `crmLimitCodes`): the run stops cleanly (checkpoint kept) and is retried later; an immediate retry would only meet
 * the same limit, so the retry waits at least CRM_LIMIT_RETRY_MS, doubling per attempt.
 */
export const CRM_LIMIT_RETRY_MS = 15 * 60_000;
const CRM_LIMIT_RETRY_MAX_MS = 2 * 3600_000;

/**
 * A run attempt failed; the summary carries the cause's code. Thrown by the queue job so BullMQ retries it. On a CRM
 * limit it carries `retryAfterMs`, which the queue's backoff honours (it stays well inside the checkpoint's TTL).
 */
export class RunFailedError extends AppError {
  readonly retryAfterMs: number | undefined;
  constructor(search: string, cause: { code: string; message: string }, attemptsMade = 0) {
    super(cause.code, `run of '${search}' failed: ${cause.message}`);
    this.retryAfterMs = crmLimitCodes().has(cause.code)
      ? Math.min(CRM_LIMIT_RETRY_MAX_MS, CRM_LIMIT_RETRY_MS * 2 ** attemptsMade)
      : undefined;
  }
}

/**
 * Codes that mean the configuration (or the CRM schema or credentials it names) is wrong: no retry helps, the queue
 * job fails at once (UnrecoverableError) and `run` exits 2. `crm_auth_failed` covers a refused token or grant and
 * missing scopes: fixed in the CRM app or the secret, not by waiting; likewise
 * `source_unauthorized` (the Sales-Intelligence token endpoint refused the client secret, or the API a fresh token).
 */
export const CONFIG_ERROR_CODES: ReadonlySet<string> = new Set([
  'config_invalid',
  'search_not_found',
  'destination_not_found',
  'contacts_not_allowed',
  'source_validation_failed',
  'offset_limit_exceeded',
  'partition_impossible',
  'crm_mapping_invalid',
  'crm_schema_mismatch',
  'crm_auth_failed',
  'source_unauthorized',
]);

/** Redis away or out of memory: a run resumes from its checkpoint once Redis takes writes again. */
export const REDIS_UNAVAILABLE = 'redis_unavailable';

const MAX_MESSAGE = 500;

/**
 * Code and message of an error, for summaries, history and job results. A remote's message can echo the record it
 * refused: it goes through the shared redactor, and is cut short.
 */
export function errorInfo(err: unknown): { code: string; message: string } {
  const code = err instanceof AppError ? err.code : isRedisUnavailable(err) ? REDIS_UNAVAILABLE : 'internal_error';
  const raw = err instanceof Error ? err.message : String(err);
  return { code, message: redactText(raw) };
}

/**
 * A remote's text (error message, reject or link reason) through the one redactor (src/shared/redact.ts), cut short.
 */
export function redactText(raw: string): string {
  return redact(raw).slice(0, MAX_MESSAGE);
}
