import { Connection } from 'jsforce';
import { AppError } from '../../shared/app-error.js';
import { DEFAULT_RETRY, errorCodeOf, withRetry, type RetryOptions } from './salesforce-call-policy.js';
import { SalesforceAuthError, SalesforceRequestError } from './salesforce-errors.js';
import { boundedRequests, type RequestStreamCreator } from './salesforce-transport.js';

export interface SalesforceAuthConfig {
  loginUrl: string;
  clientId: string;
  clientSecret: string;
  /** REST API version, e.g. "62.0" (jsforce's own default 50.0 is too old for collections upsert semantics). */
  apiVersion: string;
  /**
   * Deadline of one request (login, REST call, Bulk API 2.0 upload, poll or result download): headers and whole answer.
   */
  requestTimeoutMs?: number;
}

/** Deadline of one Salesforce request by default (config `destinations.*.requestTimeoutMs`). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 120_000;

/** The grant's own refusals (OAuth error codes) and the statuses that mean "these credentials are not accepted". */
const REFUSALS = new Set([
  'invalid_client',
  'invalid_client_id',
  'invalid_grant',
  'unauthorized_client',
  'unsupported_grant_type',
  'invalid_request',
  'invalid_scope',
  'access_denied',
  'ERROR_HTTP_400',
  'ERROR_HTTP_401',
  'ERROR_HTTP_403',
]);

/**
 * A jsforce connection on the client-credentials flow. That grant returns no refresh token, so jsforce's default
 * refresh would fail with "No refresh token found": the refreshFn simply runs the grant again.
 */
export function createSalesforceConnection(config: SalesforceAuthConfig): Connection {
  const oauth2 = { clientId: config.clientId, clientSecret: config.clientSecret, loginUrl: config.loginUrl };
  const conn = new Connection({
    loginUrl: config.loginUrl,
    instanceUrl: config.loginUrl,
    version: config.apiVersion,
    oauth2,
    refreshFn: (conn, callback) => {
      conn.authorize({ grant_type: 'client_credentials' }).then(
        () => callback(null, conn.accessToken ?? undefined),
        // jsforce keeps only the message ("Unable to refresh session due to: ..."): it says refused or unavailable.
        (err: unknown) =>
          callback(
            new Error(
              isRefusal(err) ? `credentials refused (${errorCodeOf(err)})` : `login unavailable (${errorCodeOf(err)})`,
            ),
          ),
      );
    },
  });
  const creator = boundedRequests(config.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS);
  sendBounded(conn, creator);
  sendBounded(conn.oauth2, creator);
  return conn;
}

interface JsforceTransport {
  getRequestStreamCreator(): RequestStreamCreator;
}

/**
 * Every request of the connection and of its OAuth transport (the login) goes through salesforce-transport.ts: one
 * deadline for headers and whole answer, a bounded answer, no retry of jsforce's own.
 */
function sendBounded(owner: unknown, creator: RequestStreamCreator): void {
  const transport = (owner as { _transport?: JsforceTransport })._transport;
  if (!transport || typeof transport.getRequestStreamCreator !== 'function') {
    throw new Error(
      'jsforce has no _transport.getRequestStreamCreator: check salesforce-connection.ts after a jsforce upgrade',
    );
  }
  transport.getRequestStreamCreator = () => creator;
}

function isRefusal(err: unknown): boolean {
  return REFUSALS.has(errorCodeOf(err));
}

/**
 * First token for a fresh connection, under the call policy. Only an explicit refusal of the credentials (an OAuth
 * error such as invalid_client / invalid_grant, or 400/401/403) is SalesforceAuthError (a config error); a login that
 * fails on the network, times out or meets a 5xx is retried and then SalesforceUnavailableError (retryable); any other
 * answer SalesforceRequestError. Never the answer's body text in a message.
 */
export async function authorize(
  conn: Connection,
  retry: RetryOptions = DEFAULT_RETRY,
  signal?: AbortSignal,
): Promise<void> {
  try {
    await withRetry(() => conn.authorize({ grant_type: 'client_credentials' }), retry, signal);
  } catch (err) {
    // Our typed errors (SalesforceUnavailableError after the retries) and the run's abort pass as they are.
    if (err instanceof AppError || !(err instanceof Error) || signal?.aborted) throw err;
    const code = errorCodeOf(err);
    if (isRefusal(err)) {
      // An OAuth refusal's description is Salesforce's short reason ("invalid client credentials"); a bare status has
      // none.
      const reason = code.startsWith('ERROR_HTTP_') ? code : `${code}: ${err.message.slice(0, 200)}`;
      throw new SalesforceAuthError(reason, err);
    }
    throw new SalesforceRequestError(code, 'the login (client-credentials grant) failed');
  }
}
