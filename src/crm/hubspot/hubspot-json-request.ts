import type { Client } from '@hubspot/api-client';
import type { HttpInfoLike } from './hubspot-call-policy.js';

/**
 * One HubSpot call as plain JSON through the client's generic `apiRequest` (same base path, bearer token, headers
 * and decorators as its typed APIs), without the typed APIs' ObjectSerializer, which walks every field of every
 * record in and out (~12% of the worker's CPU with writes). Statuses are as strict as the typed API's: only
 * `accepted` resolves; any other answer is thrown shaped like the client's ApiException (`code`, `body`, `headers`),
 * so the call policy and error typing treat it the same way. Bodies are HubSpot's own JSON: result flags keep their
 * wire names (`new`, not the typed API's `_new`) and dates stay strings.
 */
export async function hubspotJson<T>(
  client: Client,
  method: 'GET' | 'POST',
  path: string,
  body: unknown,
  accepted: readonly number[],
): Promise<HttpInfoLike<T>> {
  const res = await client.apiRequest({ method, path, ...(body === undefined ? {} : { body }) });
  const headers: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (!accepted.includes(res.status)) throw Object.assign(new Error(`HTTP ${res.status}`), { code: res.status, body: parsed, headers });
  // An accepted status with a body that is not JSON: the typed API throws its parse error too (retried as a server fault).
  if (parsed === undefined) throw new Error(`HubSpot answered ${res.status} without a JSON body`);
  return { data: parsed as T, headers };
}
