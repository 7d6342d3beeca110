import { AppError } from '../shared/app-error.js';

/** A search's mapping cannot work (unknown transform, empty path, match field mapped twice): fix the config. */
export class CrmMappingConfigError extends AppError {
  constructor(message: string, details: Record<string, unknown>) {
    super('crm_mapping_invalid', message, { details });
  }
}

/** The CRM's schema does not fit the config (match property not unique, mapped properties missing). */
export class CrmSchemaError extends AppError {
  constructor(message: string, details: Record<string, unknown>) {
    super('crm_schema_mismatch', message, { details });
  }
}

/** The CRM refused our credentials (401) or their scopes/permissions (403). */
export class CrmAuthError extends AppError {
  constructor(
    crm: string,
    cause?: unknown,
    reason = 'refused the access token (401)',
    details?: Record<string, unknown>,
  ) {
    super('crm_auth_failed', `${crm} ${reason}`, { cause, ...(details ? { details } : {}) });
  }
}

/** The CRM's daily request allowance is used up: the run stops cleanly and can be retried later. */
export class CrmDailyLimitError extends AppError {
  constructor(crm: string, details: Record<string, unknown> = {}) {
    super('crm_daily_limit', `${crm} daily API request limit reached; the run stops and can be retried later`, {
      details,
    });
  }
}

/** The CRM kept failing (5xx, 429, network) after our retries; records in flight were not acknowledged. */
export class CrmUnavailableError extends AppError {
  constructor(crm: string, attempts: number, lastStatus: string, cause?: unknown) {
    super('crm_unavailable', `${crm} still failing after ${attempts} attempts (${lastStatus})`, {
      cause,
      details: { attempts, lastStatus },
    });
  }
}

/** The CRM refused a whole request in a way retrying or splitting cannot fix (a bug or schema change). */
export class CrmRequestError extends AppError {
  constructor(crm: string, status: number, message: string, details: Record<string, unknown> = {}) {
    super('crm_request_failed', `${crm} refused the request (${status}): ${message}`, {
      details: { ...details, status },
    });
  }
}

/**
 * A destination's `type` no registered port knows (a config built in code; a loaded config cannot hold one), or a
 * second port for a type already registered: the configuration is wrong, no retry helps.
 */
export class DestinationTypeError extends AppError {
  constructor(message: string, details: { type: string; known: string[] }) {
    super('config_invalid', message, { details });
  }
}

/** The CRM list (HubSpot list, Salesforce campaign) a search writes to is gone or cannot take membership changes. */
export class CrmListError extends AppError {
  constructor(
    message: string,
    details: {
      crm: string;
      list: string;
      reason: 'not_found' | 'not_manual' | 'object' | 'name_taken' | 'name_ambiguous' | 'refused';
    },
  ) {
    super(details.reason === 'not_found' ? 'crm_list_not_found' : 'crm_list_unusable', message, { details });
  }
}
