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
  return new Connection({
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
