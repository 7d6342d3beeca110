import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Client } from '@hubspot/api-client';
import { Request } from '@hubspot/api-client/lib/src/services/http/Request.js';
import { announcesMoreThan, readBounded, ResponseTooLargeError } from '../../shared/bounded-body.js';
import type { HttpInfoLike } from './hubspot-call-policy.js';

/** Largest HubSpot answer read: a batch of 100 records with their properties is far below it. */
export const MAX_HUBSPOT_ANSWER_BYTES = 16 * 1024 * 1024;

/**
 * One HubSpot call as plain JSON, without the typed APIs' ObjectSerializer, which walks every field of every record in
 * and out (~12% of the worker's CPU with writes). Still the real client's `Request` (what `apiRequest` builds: base
 * path, bearer token, JSON body, default headers and user agent), sent over node http on the client's keep-alive agent
 * like its node transport (`sendBufferedRequest`) does, but with the attempt's AbortSignal (its deadline and the run's
 * stop) and a bounded answer, which that transport has neither of. Not `apiRequest` itself: it sends through the global
 * `fetch`, whose streams cost more CPU than the serializer saves (measured: dry runs ~+30%).
 * Statuses are as strict as the typed API's: only `accepted` resolves; any other answer is thrown shaped like the
 * client's ApiException (`code`, `body`, `headers`), so the call policy and error typing treat it the same way. Bodies
 * are HubSpot's own JSON: result flags keep their wire names (`new`, not the typed API's `_new`), dates stay strings.
 */
export async function hubspotJson<T>(
  client: Client,
  method: 'GET' | 'POST' | 'PUT',
  path: string,
  body: unknown,
  accepted: readonly number[],
  signal?: AbortSignal,
): Promise<HttpInfoLike<T>> {
  const request = new Request(client.config, { method, path, ...(body === undefined ? {} : { body }) });
  const res = await send(request, client.config.httpAgent, signal);
  let parsed: unknown;
  try {
    parsed = res.text === '' ? undefined : JSON.parse(res.text);
  } catch {
    parsed = undefined;
  }
  if (!accepted.includes(res.status))
    throw Object.assign(new Error(`HTTP ${res.status}`), { code: res.status, body: parsed, headers: res.headers });
  // 204 (batch archive) has no body by definition.
  if (res.status === 204) return { data: undefined as T, headers: res.headers };
  // An accepted status with a body that is not JSON: the typed API throws its parse error too (retried as a server
  // fault).
  if (parsed === undefined) throw new Error(`HubSpot answered ${res.status} without a JSON body`);
  return { data: parsed as T, headers: res.headers };
}

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  text: string;
}

async function send(
  request: Request,
  agent: Client['config']['httpAgent'],
  signal: AbortSignal | undefined,
): Promise<RawAnswer> {
  const url = request.getUrl();
  const data = request.getSendData() as { method: string; headers: Record<string, string>; body?: string };
  const open = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    const req = open(
      url,
      { method: data.method, headers: data.headers, ...(agent ? { agent } : {}), ...(signal ? { signal } : {}) },
      resolve,
    );
    req.on('error', reject);
    req.end(data.body);
  });
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers))
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  if (announcesMoreThan(response.headers['content-length'], MAX_HUBSPOT_ANSWER_BYTES)) {
    response.destroy();
    throw new ResponseTooLargeError('HubSpot', MAX_HUBSPOT_ANSWER_BYTES);
  }
  const text = await readBounded(response, MAX_HUBSPOT_ANSWER_BYTES, 'HubSpot', () => response.destroy());
  return { status: response.statusCode ?? 0, headers, text };
}
