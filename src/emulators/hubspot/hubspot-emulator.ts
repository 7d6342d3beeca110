import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { associateDefault, createAssociations } from './association-batch.js';
import { defaultFaults, type HubSpotFaults } from './emulator-faults.js';
import { emitExchange, type HubSpotExchange } from './exchange-log.js';
import { HubSpotHttpError } from './hubspot-http-error.js';
import { HubSpotStore } from './hubspot-store.js';
import { addAndRemove, createList, getListByName, membershipPage, objectTypeOf } from './list-routes.js';
import type { AddedSpelling } from './list-store.js';
import { archive, create, read, update, upsert, type BatchAnswer } from './object-batch.js';
import { search } from './object-search.js';
import { gdprDelete } from './gdpr-delete.js';
import { createProperty, getProperty, listProperties } from './property-routes.js';
import { RateWindow } from './rate-window.js';

export interface HubSpotEmulatorOptions {
  port?: number;
  /** Tokens accepted as `Authorization: Bearer …` (with `accessToken`); default `['hubspot-emulator-token']`. */
  accessTokens?: string[];
  accessToken?: string;
  /** HubSpot private-app limits; `windowMs` (10,000) is shortened by tests. */
  limits?: { perTenSeconds?: number; windowMs?: number; daily?: number };
  faults?: Partial<HubSpotFaults>;
  /**
   * Portal (Hub) id answered by GET /account-info/v3/details; default 1234567. Two emulators with different ids are two
   * portals.
   */
  portalId?: number;
  /**
   * How add-and-remove answers spell the added ids (default `recordsIdsAdded`; `state.lists.addedSpelling` flips it).
   */
  listAddedSpelling?: AddedSpelling;
}

export interface HubSpotEmulatorStats {
  requests: number;
  /** 429 answers given, by policy. */
  throttled: { TEN_SECONDLY_ROLLING: number; DAILY: number };
  byRoute: Record<string, number>;
  byStatus: Record<string, number>;
  /** Records received per batch route (inputs counted). */
  inputs: number;
}

export interface HubSpotEmulator {
  url: string;
  portalId: number;
  state: HubSpotStore;
  faults: HubSpotFaults;
  stats: HubSpotEmulatorStats;
  limits: RateWindow;
  close(): Promise<void>;
}

export const DEFAULT_HUBSPOT_TOKEN = 'hubspot-emulator-token';
const DEFAULT_PORTAL_ID = 1234567;

/** GET /account-info/v3/details as HubSpot answers it (the fields we read: portalId). */
function accountDetails(portalId: number): BatchAnswer {
  return {
    status: 200,
    body: {
      portalId,
      accountType: 'STANDARD',
      timeZone: 'Europe/Berlin',
      companyCurrency: 'EUR',
      additionalCurrencies: [],
      utcOffset: '+01:00',
      utcOffsetMilliseconds: 3_600_000,
      uiDomain: 'app-eu1.hubspot.com',
      dataHostingLocation: 'eu1',
    },
  };
}

type Handler = (params: string[], body: unknown, query: URLSearchParams) => BatchAnswer;

const objectScope =
  (access: 'read' | 'write') =>
  (params: string[]): string =>
    `crm.objects.${params[0] ?? ''}.${access}`;
const schemaScope =
  (access: 'read' | 'write') =>
  (params: string[]): string =>
    `crm.schemas.${params[0] ?? ''}.${access}`;
const listScope = (access: 'read' | 'write') => (): string => `crm.lists.${access}`;

/** HubSpot's 403 for a private app without the scope a call needs. */
function missingScopeError(scope: string): HubSpotHttpError {
  return new HubSpotHttpError(
    403,
    'MISSING_SCOPES',
    "This app hasn't been granted all required scopes to make this call. Read more about required scopes here: " +
      'https://developers.hubspot.com/scopes.',
    {
      errors: [
        { message: 'One or more of the following scopes are required.', context: { requiredGranularScopes: [scope] } },
      ],
      links: { scopes: 'https://developers.hubspot.com/scopes' },
    },
  );
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  if (chunks.length === 0) return undefined;
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new HubSpotHttpError(400, 'VALIDATION_ERROR', 'Invalid input JSON: the body is not valid JSON');
  }
}

/** A strict, stateful, in-memory HubSpot CRM (objects, properties, associations v4, lists v3, limits) on 127.0.0.1. */
export async function startHubSpotEmulator(options: HubSpotEmulatorOptions = {}): Promise<HubSpotEmulator> {
  const given = [...(options.accessTokens ?? []), ...(options.accessToken === undefined ? [] : [options.accessToken])];
  const tokens = new Set(given.length > 0 ? given : [DEFAULT_HUBSPOT_TOKEN]);
  const state = new HubSpotStore();
  if (options.listAddedSpelling !== undefined) state.lists.addedSpelling = options.listAddedSpelling;
  // Membership writes need the list scope and the object's write scope (an unknown list is answered 404 by the
  // handler).
  const membershipScopes = ([listId]: string[]): string[] => {
    const list = state.lists.byId.get(listId ?? '');
    return list === undefined
      ? ['crm.lists.write']
      : ['crm.lists.write', `crm.objects.${objectTypeOf(list.objectTypeId)}.write`];
  };
  const faults: HubSpotFaults = { ...defaultFaults(), ...options.faults };
  const limits = new RateWindow(
    options.limits?.perTenSeconds ?? 190,
    options.limits?.windowMs ?? 10_000,
    options.limits?.daily ?? 1_000_000,
  );
  const stats: HubSpotEmulatorStats = {
    requests: 0,
    throttled: { TEN_SECONDLY_ROLLING: 0, DAILY: 0 },
    byRoute: {},
    byStatus: {},
    inputs: 0,
  };
  const newId = (): string => state.newId();

  // Each route needs scopes of the private app: crm.objects.<type>.read|write, crm.schemas.<type>.read|write or
  // crm.lists.read|write (membership writes need the list's object write scope too).
  const portalId = options.portalId ?? DEFAULT_PORTAL_ID;
  const routes: {
    method: string;
    pattern: RegExp;
    name: string;
    scope: (params: string[]) => string | string[];
    handle: Handler;
  }[] = [
    // Any token of the account may read its details (HubSpot lists only the `oauth` scope).
    {
      method: 'GET',
      pattern: /^\/account-info\/v3\/details$/,
      name: 'account-info',
      scope: () => 'oauth',
      handle: () => accountDetails(portalId),
    },
    {
      method: 'POST',
      pattern: /^\/crm\/v3\/objects\/([^/]+)\/batch\/upsert$/,
      name: 'upsert',
      scope: objectScope('write'),
      handle: ([t], b) => upsert(state.table(t ?? ''), b, faults, newId),
    },
    {
      method: 'POST',
      pattern: /^\/crm\/v3\/objects\/([^/]+)\/batch\/create$/,
      name: 'create',
      scope: objectScope('write'),
      handle: ([t], b) => create(state.table(t ?? ''), b, faults, newId),
    },
    {
      method: 'POST',
      pattern: /^\/crm\/v3\/objects\/([^/]+)\/batch\/update$/,
      name: 'update',
      scope: objectScope('write'),
      handle: ([t], b) => update(state.table(t ?? ''), b, faults),
    },
    {
      method: 'POST',
      pattern: /^\/crm\/v3\/objects\/([^/]+)\/batch\/read$/,
      name: 'read',
      scope: objectScope('read'),
      handle: ([t], b) => read(state.table(t ?? ''), b),
    },
    {
      method: 'POST',
      pattern: /^\/crm\/v3\/objects\/([^/]+)\/search$/,
      name: 'search',
      scope: objectScope('read'),
      handle: ([t], b) => search(state.table(t ?? ''), b),
    },
    {
      method: 'POST',
      pattern: /^\/crm\/v3\/objects\/([^/]+)\/batch\/archive$/,
      name: 'archive',
      scope: objectScope('write'),
      handle: ([t], b) => {
        const answer = archive(state.table(t ?? ''), b);
        state.unlistGone(t ?? '');
        return answer;
      },
    },
    {
      method: 'POST',
      pattern: /^\/crm\/v3\/objects\/contacts\/gdpr-delete$/,
      name: 'gdprDelete',
      scope: () => 'crm.objects.contacts.write',
      handle: (_, b) => gdprDelete(state, b),
    },
    {
      method: 'POST',
      pattern: /^\/crm\/v3\/lists\/?$/,
      name: 'lists.create',
      scope: listScope('write'),
      handle: (_, b) => createList(state, b),
    },
    {
      method: 'GET',
      pattern: /^\/crm\/v3\/lists\/object-type-id\/([^/]+)\/name\/([^/]+)$/,
      name: 'lists.byName',
      scope: listScope('read'),
      handle: ([t, n]) => getListByName(state, t ?? '', n ?? ''),
    },
    {
      method: 'PUT',
      pattern: /^\/crm\/v3\/lists\/([^/]+)\/memberships\/add-and-remove$/,
      name: 'lists.addAndRemove',
      scope: membershipScopes,
      handle: ([l], b) => addAndRemove(state, l ?? '', b),
    },
    {
      method: 'GET',
      pattern: /^\/crm\/v3\/lists\/([^/]+)\/memberships$/,
      name: 'lists.memberships',
      scope: listScope('read'),
      handle: ([l], _, q) => membershipPage(state, l ?? '', q),
    },
    {
      method: 'GET',
      pattern: /^\/crm\/v3\/properties\/([^/]+)$/,
      name: 'properties.list',
      scope: schemaScope('read'),
      handle: ([t]) => listProperties(state.table(t ?? '')),
    },
    {
      method: 'GET',
      pattern: /^\/crm\/v3\/properties\/([^/]+)\/([^/]+)$/,
      name: 'properties.get',
      scope: schemaScope('read'),
      handle: ([t, n]) => getProperty(state.table(t ?? ''), n ?? ''),
    },
    {
      method: 'POST',
      pattern: /^\/crm\/v3\/properties\/([^/]+)$/,
      name: 'properties.create',
      scope: schemaScope('write'),
      handle: ([t], b) => createProperty(state.table(t ?? ''), b),
    },
    {
      method: 'POST',
      pattern: /^\/crm\/v4\/associations\/([^/]+)\/([^/]+)\/batch\/create$/,
      name: 'associations.create',
      scope: objectScope('write'),
      handle: ([f, t], b) => createAssociations(state, f ?? '', t ?? '', b),
    },
    {
      method: 'POST',
      pattern: /^\/crm\/v4\/associations\/([^/]+)\/([^/]+)\/batch\/associate\/default$/,
      name: 'associations.default',
      scope: objectScope('write'),
      handle: ([f, t], b) => associateDefault(state, f ?? '', t ?? '', b),
    },
  ];

  type Asked = Omit<HubSpotExchange, 'status' | 'responseBody'>;
  const send = (
    res: ServerResponse,
    asked: Asked | undefined,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ): void => {
    stats.byStatus[status] = (stats.byStatus[status] ?? 0) + 1;
    if (asked !== undefined) emitExchange({ ...asked, status, responseBody: body });
    if (body === undefined) {
      res.writeHead(status, headers).end();
      return;
    }
    res.writeHead(status, { ...headers, 'content-type': 'application/json;charset=utf-8' }).end(JSON.stringify(body));
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (faults.latencyMs > 0) await new Promise((r) => setTimeout(r, faults.latencyMs));
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const asked: Asked = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.search,
      requestBody: undefined,
      requestRead: false,
    };
    const auth = req.headers.authorization ?? '';
    if (!auth.startsWith('Bearer ') || !tokens.has(auth.slice('Bearer '.length))) {
      req.resume();
      send(
        res,
        asked,
        401,
        new HubSpotHttpError(
          401,
          'INVALID_AUTHENTICATION',
          'Authentication credentials not found. This API supports OAuth 2.0 authentication and you can find ' +
            'more details at https://developers.hubspot.com/docs/methods/auth/oauth-overview',
        ).body(),
      );
      return;
    }
    stats.requests += 1;
    const now = Date.now();
    let verdict = limits.take(now);
    if (verdict === 'ok' && faults.force429Next > 0) {
      faults.force429Next -= 1;
      verdict = 'TEN_SECONDLY_ROLLING';
    }
    const headers = limits.headers(now);
    if (verdict !== 'ok') {
      req.resume();
      stats.throttled[verdict] += 1;
      const message =
        verdict === 'DAILY'
          ? 'You have reached your daily limit.'
          : 'You have reached your ten_secondly_rolling limit.';
      send(
        res,
        asked,
        429,
        { status: 'error', message, errorType: 'RATE_LIMIT', correlationId: randomUUID(), policyName: verdict },
        headers,
      );
      return;
    }
    if (faults.fail5xxNext > 0 || (faults.fail5xxRate > 0 && Math.random() < faults.fail5xxRate)) {
      const status = faults.fail5xxNext > 0 ? 502 : 503;
      if (faults.fail5xxNext > 0) faults.fail5xxNext -= 1;
      req.resume();
      send(res, asked, status, new HubSpotHttpError(status, 'INTERNAL_ERROR', 'internal error').body(), headers);
      return;
    }
    const route = routes.find((r) => r.method === req.method && r.pattern.test(url.pathname));
    try {
      if (route === undefined)
        throw new HubSpotHttpError(404, 'OBJECT_NOT_FOUND', `No route for ${req.method} ${url.pathname}`);
      stats.byRoute[route.name] = (stats.byRoute[route.name] ?? 0) + 1;
      const body = await readBody(req);
      asked.requestBody = body;
      asked.requestRead = true;
      if (faults.hang.times > 0 && (faults.hang.route === undefined || faults.hang.route === route.name)) {
        faults.hang.times -= 1;
        faults.hung += 1;
        return;
      }
      if (
        (req.method === 'POST' || req.method === 'PUT') &&
        !(req.headers['content-type'] ?? '').includes('application/json')
      ) {
        throw new HubSpotHttpError(415, 'VALIDATION_ERROR', 'Content-Type must be application/json');
      }
      const inputs = (body as { inputs?: unknown } | undefined)?.inputs;
      if (Array.isArray(inputs)) stats.inputs += inputs.length;
      const params = (route.pattern.exec(url.pathname) ?? []).slice(1).map((p) => decodeURIComponent(p));
      const scope = [route.scope(params)].flat().find((s) => faults.missingScopes.has(s));
      if (scope !== undefined) throw missingScopeError(scope);
      const answer = route.handle(params, body, url.searchParams);
      send(res, asked, answer.status, answer.body, headers);
    } catch (err) {
      if (!(err instanceof HubSpotHttpError)) throw err;
      send(res, asked, err.status, err.body(), headers);
    }
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent)
        send(
          res,
          undefined,
          500,
          new HubSpotHttpError(500, 'INTERNAL_ERROR', err instanceof Error ? err.message : 'error').body(),
        );
    });
  });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    portalId,
    state,
    faults,
    stats,
    limits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
