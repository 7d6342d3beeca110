import { AppError } from '../../src/shared/app-error.js';

/** The run was stopped from outside (shutdown, lost run lock) after checkpointing its last accepted batch. */
export class RunAbortedError extends AppError {
  constructor(search: string) {
    super('run_aborted', `the run of '${search}' was stopped before its end; it resumes from its checkpoint`);
  }
}

/** A run attempt failed; the summary carries the cause's code. Thrown by the queue job so BullMQ retries it. */
export class RunFailedError extends AppError {
  constructor(search: string, cause: { code: string; message: string }) {
    super(cause.code, `run of '${search}' failed: ${cause.message}`);
  }
}

/** Codes that mean the configuration (or the CRM schema it names) is wrong: no retry helps; `run` exits 2. */
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
]);

const EMAIL = /[^\s"'<>@]+@[^\s"'<>@]+\.[a-z]{2,}/gi;
const PHONE = /\+?\d[\d ()./-]{7,}\d/g;
const MAX_MESSAGE = 500;

/**
 * Code and message of an error, for summaries, history and job results. A remote's message can echo the record it
 * refused: emails and phone numbers are masked, and the message is cut short.
 */
export function errorInfo(err: unknown): { code: string; message: string } {
  const code = err instanceof AppError ? err.code : 'internal_error';
  const raw = err instanceof Error ? err.message : String(err);
  return { code, message: raw.replace(EMAIL, '[email]').replace(PHONE, '[phone]').slice(0, MAX_MESSAGE) };
}
