import { AppError } from '../../shared/app-error.js';

/** The org's daily API allowance is used up (REQUEST_LIMIT_EXCEEDED): stop the run, retry after the 24h window rolls. */
export class SalesforceDailyLimitError extends AppError {
  constructor(details: { used?: number; limit?: number }) {
    super('crm_daily_limit', 'Salesforce daily API request limit reached (REQUEST_LIMIT_EXCEEDED); the run stops and can be retried later', { details });
  }
}

/** Our own cap (`maxApiShare` of the daily allowance) would be passed: stop before eating the org's other integrations' share. */
export class SalesforceApiShareError extends AppError {
  constructor(details: { used: number; limit: number; maxApiShare: number }) {
    super('crm_api_share_exceeded', `Salesforce API usage ${details.used}/${details.limit} reached the configured maximum share ${details.maxApiShare} of the daily allowance; the run stops and can be retried later`, { details });
  }
}

/** The org's schema does not fit the config (match field missing / not an external id, mapped field missing). */
export class SalesforceSchemaError extends AppError {
  constructor(message: string, details: Record<string, unknown>) {
    super('crm_schema_mismatch', message, { details });
  }
}

/** The client-credentials grant failed (wrong id/secret, app not allowed). */
export class SalesforceAuthError extends AppError {
  constructor(reason: string, cause?: unknown) {
    super('crm_auth_failed', `Salesforce authentication failed: ${reason}`, { cause });
  }
}

/** Salesforce kept failing (5xx, 429, network) after our retries; nothing was acknowledged for the records in flight. */
export class SalesforceUnavailableError extends AppError {
  constructor(attempts: number, lastCode: string, cause?: unknown) {
    super('crm_unavailable', `Salesforce still failing after ${attempts} attempts (${lastCode})`, { cause, details: { attempts, lastCode } });
  }
}

/** Salesforce refused a whole request (not one record): a bug or a schema change, never retried. */
export class SalesforceRequestError extends AppError {
  constructor(errorCode: string, message: string) {
    super('crm_request_rejected', `Salesforce rejected the request: ${errorCode}: ${message}`, { details: { errorCode } });
  }
}
