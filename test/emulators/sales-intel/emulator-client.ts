/** Real-HTTP helpers for the emulator tests (fetch against the running emulator; nothing mocked). */
import type { SalesIntelEmulator } from '../../../src/emulators/sales-intel/index.js';

export interface HttpResult {
  status: number;
  body: Record<string, unknown>;
  headers: Headers;
}

export async function getToken(
  emu: SalesIntelEmulator,
  clientId = 'demo-client',
  clientSecret = 'demo-secret',
): Promise<string> {
  const res = await fetch(emu.tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }),
  });
  if (res.status !== 200) throw new Error(`token endpoint answered ${res.status}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

export async function call(
  emu: SalesIntelEmulator,
  token: string | undefined,
  method: string,
  path: string,
  body?: unknown,
): Promise<HttpResult> {
  const headers: Record<string, string> = {};
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${emu.url}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  expectJsonContentType(res.headers);
  return {
    status: res.status,
    body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>),
    headers: res.headers,
  };
}

function expectJsonContentType(h: Headers): void {
  if (!(h.get('content-type') ?? '').startsWith('application/json'))
    throw new Error(`not JSON: ${h.get('content-type')}`);
}

/** An authenticated client bound to one emulator. */
export async function client(emu: SalesIntelEmulator, clientId?: string, clientSecret?: string) {
  const token = await getToken(emu, clientId, clientSecret);
  return {
    token,
    post: (path: string, body: unknown = {}) => call(emu, token, 'POST', path, body),
    get: (path: string) => call(emu, token, 'GET', path),
  };
}

export type Client = Awaited<ReturnType<typeof client>>;

interface Page {
  page: { nextCursor: string | null; hasMore: boolean };
  data: { id: string }[];
}

/** Walks a cursor journey to its end; returns every id in order. */
export async function walk(c: Client, path: string, body: unknown, limit = 100): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const q: string = cursor === null ? `?limit=${limit}` : `?limit=${limit}&cursor=${encodeURIComponent(cursor)}`;
    const r = await c.post(`${path}${q}`, body);
    if (r.status !== 200) throw new Error(`page answered ${r.status} ${JSON.stringify(r.body)}`);
    const page = r.body as unknown as Page;
    ids.push(...page.data.map((d) => d.id));
    cursor = page.page.nextCursor;
    if (page.page.hasMore !== (cursor !== null)) throw new Error('hasMore and nextCursor disagree');
  } while (cursor !== null);
  return ids;
}
