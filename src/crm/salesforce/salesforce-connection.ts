import { Connection } from 'jsforce';
import { SalesforceAuthError } from './salesforce-errors.js';

export interface SalesforceAuthConfig {
  loginUrl: string;
  clientId: string;
  clientSecret: string;
  /** REST API version, e.g. "62.0" (jsforce's own default 50.0 is too old for collections upsert semantics). */
  apiVersion: string;
}

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
        (err: unknown) => callback(err instanceof Error ? err : new Error(String(err))),
      );
    },
  });
  withoutJsforceRetry(conn);
  return conn;
}

type HttpRequest = (req: unknown, options?: { retry?: Record<string, unknown> }) => unknown;

/**
 * jsforce retries GET/PUT/DELETE on 5xx by itself and re-sends a request body stream it already consumed: a 5xx on
 * the Bulk API 2.0 CSV upload then fails with "Response body object should not be disturbed or locked" (issue 12).
 * Our call policy (salesforce-call-policy.ts) owns every retry and rebuilds the request, so jsforce's is off.
 */
function withoutJsforceRetry(conn: Connection): void {
  const transport = (conn as unknown as { _transport?: { httpRequest: HttpRequest } })._transport;
  if (!transport) throw new Error('jsforce has no _transport: check salesforce-connection.ts after a jsforce upgrade');
  const httpRequest = transport.httpRequest.bind(transport);
  transport.httpRequest = (req, options = {}) => httpRequest(req, { ...options, retry: { ...options.retry, maxRetries: 0 } });
}

/** First token for a fresh connection; grant errors (HTTP 400 {error, error_description}) become SalesforceAuthError. */
export async function authorize(conn: Connection): Promise<void> {
  try {
    await conn.authorize({ grant_type: 'client_credentials' });
  } catch (err) {
    const name = err instanceof Error ? err.name : 'error';
    const description = err instanceof Error ? err.message : String(err);
    throw new SalesforceAuthError(`${name}: ${description}`, err);
  }
}
