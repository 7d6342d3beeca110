import type { HubSpotCaller } from './hubspot-caller.js';

/**
 * The portal (Hub) id of the account the token belongs to: GET /account-info/v3/details -> `portalId`. The
 * @hubspot/api-client has no typed API for it, so the client's generic `apiRequest` is used (through our caller:
 * same limiter, retries and typed errors as every other call).
 */
export async function hubspotPortalId(caller: HubSpotCaller, signal?: AbortSignal): Promise<string> {
  const details = await caller.call(async (client) => {
    const res = await client.apiRequest({ method: 'GET', path: '/account-info/v3/details' });
    const headers = Object.fromEntries(res.headers.entries());
    const body: unknown = await res.json().catch(() => undefined);
    // Shaped like the client's ApiException so the retry policy and error typing treat it the same way.
    if (!res.ok) throw Object.assign(new Error(`HTTP ${res.status}`), { code: res.status, body, headers });
    return { data: body as { portalId?: unknown }, headers };
  }, { operation: 'account-info', object: 'account' }, signal);
  const id = details?.portalId;
  if (typeof id !== 'number' && typeof id !== 'string') throw new Error('the account-info answer lacks portalId');
  return String(id);
}
