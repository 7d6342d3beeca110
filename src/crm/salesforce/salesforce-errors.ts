import { AppError } from '../../shared/app-error.js';
import { CrmAuthError, CrmDailyLimitError, CrmRequestError, CrmSchemaError, CrmUnavailableError } from '../errors.js';

/**
 * Salesforce flavours of the shared CRM errors (same stable codes, so the run logic handles both CRMs alike),
 * plus the one Salesforce-only stop: our own cap on the share of the daily allowance.
 */
export class SalesforceDailyLimitError extends CrmDailyLimitError {
  constructor(details: { used?: number; limit?: number } = {}) {
    super('Salesforce', { ...details, errorCode: 'REQUEST_LIMIT_EXCEEDED' });
  }
}

/** Our own cap (`maxApiShare` of the daily allowance) would be passed: stop before eating other integrations' share. */
export class SalesforceApiShareError extends AppError {
  constructor(details: { used: number; limit: number; maxApiShare: number }) {
    super(
      'crm_api_share_exceeded',
      `Salesforce API usage ${details.used}/${details.limit} reached the configured maximum ` +
        `share ${details.maxApiShare} of the daily allowance; the run stops and can be retried later`,
      { details },
    );
  }
}

/** The org's schema does not fit the config (match field missing / not an external id, mapped field missing). */
export class SalesforceSchemaError extends CrmSchemaError {}

/** The client-credentials grant failed (wrong id/secret, app not allowed to use the flow). */
export class SalesforceAuthError extends CrmAuthError {
  constructor(reason: string, cause?: unknown) {
    super('Salesforce', cause, `authentication failed: ${reason}`);
  }
}

/**
 * Salesforce kept failing (5xx, 429, network) after our retries; nothing was acknowledged for the records in flight.
 */
export class SalesforceUnavailableError extends CrmUnavailableError {
  constructor(attempts: number, lastCode: string, cause?: unknown) {
    super('Salesforce', attempts, lastCode, cause);
  }
}

/** Salesforce refused a whole request (not one record): a bug or a schema change, never retried. */
export class SalesforceRequestError extends CrmRequestError {
  constructor(errorCode: string, message: string) {
    // jsforce keeps the Salesforce errorCode but not the HTTP status, except in ERROR_HTTP_<status>.
    super('Salesforce', Number(/^ERROR_HTTP_(\d{3})$/.exec(errorCode)?.[1] ?? 400), `${errorCode}: ${message}`);
  }
}
