import type { HubSpotCaller } from './hubspot-caller.js';
import { hubspotJson } from './hubspot-json-request.js';

/**
 * The portal (Hub) id of the account the token belongs to: GET /account-info/v3/details -> `portalId`. The
 * @hubspot/api-client has no typed API for it, so the client's generic `apiRequest` is used (through our caller:
 * same limiter, retries and typed errors as every other call).
 */
export async function hubspotPortalId(caller: HubSpotCaller, signal?: AbortSignal): Promise<string> {
  const details = await caller.call(
    (client, attempt) =>
      hubspotJson<{ portalId?: unknown } | undefined>(
        client,
        'GET',
        '/account-info/v3/details',
        undefined,
        [200],
        attempt,
      ),
    { operation: 'account-info', object: 'account' },
    signal,
  );
  const id = details?.portalId;
  if (typeof id !== 'number' && typeof id !== 'string') throw new Error('the account-info answer lacks portalId');
  return String(id);
}
