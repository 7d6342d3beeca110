import type { Client } from '@hubspot/api-client';
import { Request } from '@hubspot/api-client/lib/src/services/http/Request.js';
import { sendBufferedRequest } from '@hubspot/api-client/lib/src/services/http/Transport.js';
import type { HttpInfoLike } from './hubspot-call-policy.js';

/**
 * One HubSpot call as plain JSON, without the typed APIs' ObjectSerializer, which walks every field of every record in
 * and out (~12% of the worker's CPU with writes). Still the real client's pieces: its `Request` (what `apiRequest`
 * builds: base path, bearer token, JSON body, default headers and user agent) sent by its node transport
 * (`sendBufferedRequest`, what the typed APIs send with) over the client's keep-alive agent. Not `apiRequest` itself:
 * it sends through the global `fetch`, whose streams cost more CPU than the serializer saves (measured: dry runs ~+30%).
 * Statuses are as strict as the typed API's: only `accepted` resolves; any other answer is thrown shaped like the
 * client's ApiException (`code`, `body`, `headers`), so the call policy and error typing treat it the same way. Bodies
 * are HubSpot's own JSON: result flags keep their wire names (`new`, not the typed API's `_new`), dates stay strings.
 */
export async function hubspotJson<T>(
  client: Client,
  method: 'GET' | 'POST',
  path: string,
  body: unknown,
  accepted: readonly number[],
): Promise<HttpInfoLike<T>> {
  const request = new Request(client.config, { method, path, ...(body === undefined ? {} : { body }) });
  const res = await sendBufferedRequest(request.getUrl(), { ...request.getSendData(), ...(client.config.httpAgent ? { agent: client.config.httpAgent } : {}) });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (!accepted.includes(res.status)) throw Object.assign(new Error(`HTTP ${res.status}`), { code: res.status, body: parsed, headers: res.headers });
  // An accepted status with a body that is not JSON: the typed API throws its parse error too (retried as a server fault).
  if (parsed === undefined) throw new Error(`HubSpot answered ${res.status} without a JSON body`);
  return { data: parsed as T, headers: res.headers };
}
