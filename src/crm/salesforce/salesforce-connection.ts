import { Connection } from 'jsforce';
import { setDispatcher } from 'jsforce/lib/request.js';
import { Agent } from 'undici';
import { AppError } from '../../shared/app-error.js';
import { announcesMoreThan, ResponseTooLargeError } from '../../shared/bounded-body.js';
import { RemoteTimeoutError } from '../../shared/remote-deadline.js';
import { DEFAULT_RETRY, errorCodeOf, withRetry, type RetryOptions } from './salesforce-call-policy.js';
import { SalesforceAuthError, SalesforceRequestError } from './salesforce-errors.js';

export interface SalesforceAuthConfig {
  loginUrl: string;
  clientId: string;
  clientSecret: string;
  /** REST API version, e.g. "62.0" (jsforce's own default 50.0 is too old for collections upsert semantics). */
  apiVersion: string;
  /** Deadline of one request (login, REST call, Bulk API 2.0 upload, poll or result download): headers and whole answer. */
  requestTimeoutMs?: number;
}

/** Deadline of one Salesforce request by default (config `destinations.*.requestTimeoutMs`). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 120_000;
/** Largest Salesforce answer read: Bulk API 2.0 results of a 10,000-row job are far below it. */
export const MAX_SALESFORCE_ANSWER_BYTES = 64 * 1024 * 1024;

/** The grant's own refusals (OAuth error codes) and the statuses that mean "these credentials are not accepted". */
const REFUSALS = new Set(['invalid_client', 'invalid_client_id', 'invalid_grant', 'unauthorized_client', 'unsupported_grant_type', 'invalid_request', 'invalid_scope', 'access_denied', 'ERROR_HTTP_400', 'ERROR_HTTP_401', 'ERROR_HTTP_403']);

// jsforce sends through one undici dispatcher per process: bounded answers for every connection (an answer past the
// bound fails its body stream, which jsforce never settles: the request's deadline then ends it).
setDispatcher(new Agent({ connect: { allowH2: false }, maxResponseSize: MAX_SALESFORCE_ANSWER_BYTES }));

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
        (err: unknown) => callback(new Error(isRefusal(err) ? `credentials refused (${errorCodeOf(err)})` : `login unavailable (${errorCodeOf(err)})`)),
      );
    },
  });
  const timeoutMs = config.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  bounded(transportOf(conn), timeoutMs, true);
  bounded(transportOf(conn.oauth2), timeoutMs, false);
  return conn;
}

type HttpRequest = (req: unknown, options?: { retry?: Record<string, unknown>; timeout?: number }) => Promise<unknown> & { stream(): NodeJS.EventEmitter };

function transportOf(owner: unknown): { httpRequest: HttpRequest } {
  const transport = (owner as { _transport?: { httpRequest: HttpRequest } })._transport;
  if (!transport) throw new Error('jsforce has no _transport: check salesforce-connection.ts after a jsforce upgrade');
  return transport;
}

/**
 * Every request of a jsforce transport under a deadline (headers and whole answer: jsforce's own `timeout` covers
 * only the headers and defaults to 30 minutes) and a size bound read from Content-Length; past either it rejects with
 * RemoteTimeoutError / ResponseTooLargeError, which the call policy retries / surfaces.
 * Also, on the REST transport, jsforce's own retry is off: it retries GET/PUT/DELETE on 5xx by itself and re-sends a
 * request body stream it already consumed, so a 5xx on the Bulk API 2.0 CSV upload then fails with "Response body
 * object should not be disturbed or locked" (issue 12). Our call policy (salesforce-call-policy.ts) owns every retry
 * and rebuilds the request.
 */
function bounded(transport: { httpRequest: HttpRequest }, timeoutMs: number, noRetry: boolean): void {
  const httpRequest = transport.httpRequest.bind(transport);
  transport.httpRequest = (req, options = {}) => {
    const sent = httpRequest(req, { ...options, timeout: timeoutMs, ...(noRetry ? { retry: { ...options.retry, maxRetries: 0 } } : {}) });
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new RemoteTimeoutError('Salesforce', timeoutMs)), timeoutMs);
      sent.stream().on('response', (res: { headers?: Record<string, string> }) => {
        if (announcesMoreThan(res.headers?.['content-length'], MAX_SALESFORCE_ANSWER_BYTES)) reject(new ResponseTooLargeError('Salesforce', MAX_SALESFORCE_ANSWER_BYTES));
      });
    });
    limit.catch(() => undefined);
    sent.catch(() => undefined);
    // jsforce's header timeout aborts its fetch with an AbortError: the same deadline, said as ours.
    const answered = sent.catch((err: unknown) => {
      throw err instanceof Error && err.name === 'AbortError' ? new RemoteTimeoutError('Salesforce', timeoutMs) : err;
    });
    const raced = Promise.race([answered, limit]).finally(() => clearTimeout(timer));
    return Object.assign(raced, { stream: () => sent.stream() });
  };
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
export async function authorize(conn: Connection, retry: RetryOptions = DEFAULT_RETRY, signal?: AbortSignal): Promise<void> {
  try {
    await withRetry(() => conn.authorize({ grant_type: 'client_credentials' }), retry, signal);
  } catch (err) {
    // Our typed errors (SalesforceUnavailableError after the retries) and the run's abort pass as they are.
    if (err instanceof AppError || !(err instanceof Error) || signal?.aborted) throw err;
    const code = errorCodeOf(err);
    if (isRefusal(err)) {
      // An OAuth refusal's description is Salesforce's short reason ("invalid client credentials"); a bare status has none.
      const reason = code.startsWith('ERROR_HTTP_') ? code : `${code}: ${err.message.slice(0, 200)}`;
      throw new SalesforceAuthError(reason, err);
    }
    throw new SalesforceRequestError(code, 'the login (client-credentials grant) failed');
  }
}
