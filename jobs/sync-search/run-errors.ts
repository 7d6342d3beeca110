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

export function errorInfo(err: unknown): { code: string; message: string } {
  if (err instanceof AppError) return { code: err.code, message: err.message };
  return { code: 'internal_error', message: err instanceof Error ? err.message : String(err) };
}
