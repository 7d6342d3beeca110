import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { BulkIngest } from './bulk-ingest.js';
import {
  deleteRefusal,
  faultBody,
  hangs,
  rejectRule,
  routeFault,
  seededRandom,
  type SalesforceFaults,
} from './emulator-faults.js';
import {
  RecordStore,
  SfRequestError,
  type DeleteResult,
  type SfRecordError,
  type UpsertResult,
} from './record-store.js';
import { defaultSchema, type SfSchema } from './salesforce-schema.js';
import { runSoql } from './soql-query.js';

export interface SalesforceEmulatorOptions {
  port?: number;
  clients: { clientId: string; clientSecret: string }[];
  tokenLifetimeSeconds?: number;
  /** Daily API request allowance (the M of `api-usage=N/M`). */
  apiDailyLimit?: number;
  /** Usage already spent today when the emulator starts. */
  apiUsageStart?: number;
  objects?: SfSchema;
  faults?: SalesforceFaults;
  /** Delay before an ingest job starts processing, and rows processed per event-loop turn. */
  bulkProcessingDelayMs?: number;
  bulkRowsPerTick?: number;
  /**
   * Organization id carried by the token response's identity URL and /services/oauth2/userinfo; two ids are two orgs.
   */
  orgId?: string;
  /**
   * The org setting "Accounts as Campaign Members" (adds CampaignMember.AccountId); off by default. `state.settings`
   * flips it.
   */
  accountsAsCampaignMembers?: boolean;
  /** Records per query answer; the rest follow by `nextRecordsUrl` (Salesforce's default batch: 2,000). */
  queryBatchSize?: number;
}

export interface SalesforceEmulatorStats {
  apiUsage: number;
  tokensIssued: number;
  /** Requests per route label, e.g. `PATCH composite/sobjects`, including refused ones. */
  requests: Record<string, number>;
  /** Status codes sent, including injected faults. */
  statuses: Record<number, number>;
  /** Records per collections request, in arrival order. */
  collectionSizes: number[];
  /** Most requests of one route label being served at once (arrived, not yet answered). */
  peakInFlight: Record<string, number>;
}

export interface SalesforceEmulator {
  /** Both the login URL and the instance URL. */
  url: string;
  orgId: string;
  state: RecordStore;
  bulk: BulkIngest;
  faults: SalesforceFaults;
  stats: SalesforceEmulatorStats;
  /** Invalidates every access token now (the next API call gets 401 INVALID_SESSION_ID). */
  expireAllSessions(): void;
  close(): Promise<void>;
}

const MIN_VERSION = 46;
const MAX_COLLECTION = 200;
const ORG_ID = '00D000000000001AAA';
const USER_ID = '005000000000001AAA';

/**
 * A strict, stateful, in-memory Salesforce org speaking the REST, composite and Bulk API 2.0 wire formats jsforce uses.
 */
export async function startSalesforceEmulator(options: SalesforceEmulatorOptions): Promise<SalesforceEmulator> {
  const store = new RecordStore(options.objects ?? defaultSchema());
  store.settings.accountsAsCampaignMembers = options.accountsAsCampaignMembers ?? false;
  const batchSize = options.queryBatchSize ?? 2000;
  /** Query cursors: the rows a `nextRecordsUrl` still holds. */
  const cursors = new Map<string, { type: string; rows: Record<string, unknown>[] }>();
  let cursorSeq = 0;
  const faults: SalesforceFaults = options.faults ?? {};
  const sessions = new Map<string, number>();
  const orgId = options.orgId ?? ORG_ID;
  const lifetimeMs = (options.tokenLifetimeSeconds ?? 7200) * 1000;
  const limit = options.apiDailyLimit ?? 1_000_000;
  const stats: SalesforceEmulatorStats = {
    apiUsage: options.apiUsageStart ?? 0,
    tokensIssued: 0,
    requests: {},
    statuses: {},
    collectionSizes: [],
    peakInFlight: {},
  };
  const random = seededRandom();
  const bulk = new BulkIngest(store, {
    processingDelayMs: options.bulkProcessingDelayMs ?? 20,
    rowsPerTick: options.bulkRowsPerTick ?? 2000,
    reject: () => rejectRule(faults),
  });
  let url = '';

  const send = (
    res: ServerResponse,
    status: number,
    body: unknown,
    contentType = 'application/json;charset=UTF-8',
  ): void => {
    stats.statuses[status] = (stats.statuses[status] ?? 0) + 1;
    const text = body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body);
    res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(text) });
    res.end(text);
  };
  const sendError = (res: ServerResponse, status: number, errorCode: string, message: string): void =>
    send(res, status, [{ message, errorCode }]);

  const token = (req: IncomingMessage, res: ServerResponse, body: string): void => {
    if (req.method !== 'POST')
      return send(res, 405, { error: 'invalid_request', error_description: 'must use HTTP POST' });
    if (!req.headers['content-type']?.startsWith('application/x-www-form-urlencoded')) {
      return send(res, 400, { error: 'invalid_request', error_description: 'request must be form-encoded' });
    }
    const form = new URLSearchParams(body);
    if (form.get('grant_type') !== 'client_credentials') {
      return send(res, 400, { error: 'unsupported_grant_type', error_description: 'grant type not supported' });
    }
    const client = options.clients.find((c) => c.clientId === form.get('client_id'));
    if (!client || client.clientSecret !== form.get('client_secret')) {
      return send(res, 400, { error: 'invalid_client', error_description: 'invalid client credentials' });
    }
    const accessToken = `${orgId}!${randomBytes(24).toString('base64url')}`;
    sessions.set(accessToken, Date.now() + lifetimeMs);
    stats.tokensIssued++;
    send(res, 200, {
      access_token: accessToken,
      instance_url: url,
      id: `${url}/id/${orgId}/${USER_ID}`,
      token_type: 'Bearer',
      issued_at: String(Date.now()),
      signature: randomBytes(16).toString('base64'),
      scope: 'api',
    });
  };

  const upsertResult = (r: UpsertResult): Record<string, unknown> =>
    r.ok ? { id: r.id, success: true, errors: [], created: r.created } : { success: false, errors: r.errors };

  const collections = (type: string, fieldName: string, body: unknown): unknown[] => {
    const object = store.object(type);
    const extField = store.externalIdField(object, fieldName);
    const { allOrNone, records } = (body ?? {}) as { allOrNone?: unknown; records?: unknown };
    if (!Array.isArray(records))
      throw new SfRequestError(400, 'JSON_PARSER_ERROR', 'The request body must be {allOrNone, records: [...]}');
    stats.collectionSizes.push(records.length);
    if (records.length > MAX_COLLECTION)
      throw new SfRequestError(
        400,
        'EXCEEDED_ID_LIMIT',
        `record limit reached. cannot submit more than ${MAX_COLLECTION} records into this call`,
      );
    // Request-level checks first: a request refused as a whole must not leave half of its records written.
    const counts = new Map<string, number>();
    for (const record of records as unknown[]) {
      if (record === null || typeof record !== 'object' || Array.isArray(record))
        throw new SfRequestError(400, 'JSON_PARSER_ERROR', 'Each record must be a JSON object');
      const attributes = (record as { attributes?: { type?: unknown } }).attributes;
      if (!attributes || typeof attributes.type !== 'string')
        throw new SfRequestError(
          400,
          'INVALID_TYPE',
          'Must send a concrete entity type: every record needs attributes.type',
        );
      if (attributes.type.toLowerCase() !== object.name.toLowerCase())
        throw new SfRequestError(400, 'INVALID_TYPE', `Record of type ${attributes.type} in a ${object.name} upsert`);
      const v = String((record as Record<string, unknown>)[extField.name] ?? '').toLowerCase();
      counts.set(v, (counts.get(v) ?? 0) + 1);
    }
    const undo: (() => void)[] = [];
    const rollback = (): void => {
      for (const step of undo.reverse()) step();
    };
    const rule = rejectRule(faults);
    let results: UpsertResult[];
    try {
      results = (records as Record<string, unknown>[]).map((record) => {
        const raw = record[extField.name];
        const { [extField.name]: _ext, ...rest } = record;
        if (typeof raw !== 'string' || raw === '')
          return {
            ok: false,
            errors: [
              { statusCode: 'MISSING_ARGUMENT', message: `${extField.name} not specified`, fields: [extField.name] },
            ],
          };
        if ((counts.get(raw.toLowerCase()) ?? 0) > 1)
          return {
            ok: false,
            errors: [
              {
                statusCode: 'DUPLICATE_EXTERNAL_ID',
                message: `Duplicate external id specified: ${raw}`,
                fields: [extField.name],
              },
            ],
          };
        return store.upsert(object, extField, raw, rest, undo, rule);
      });
    } catch (err) {
      rollback();
      throw err;
    }
    if (allOrNone === true && results.some((r) => !r.ok)) {
      rollback();
      const rolledBack: SfRecordError = {
        statusCode: 'ALL_OR_NONE_OPERATION_ROLLED_BACK',
        message: 'Record rolled back because not all records were valid and the request was using AllOrNone header',
        fields: [],
      };
      return results.map((r) => (r.ok ? { success: false, errors: [rolledBack] } : upsertResult(r)));
    }
    return results.map(upsertResult);
  };

  const rolledBack: SfRecordError = {
    statusCode: 'ALL_OR_NONE_OPERATION_ROLLED_BACK',
    message: 'Record rolled back because not all records were valid and the request was using AllOrNone header',
    fields: [],
  };

  /** sObject Collections DELETE: one DeleteResult per id, in the order asked; a failed one carries no id. */
  const destroy = (query: URLSearchParams): unknown[] => {
    const raw = query.get('ids');
    if (raw === null || raw.trim() === '')
      throw new SfRequestError(400, 'MISSING_ARGUMENT', 'ids: required parameter missing');
    const ids = raw.split(',');
    stats.collectionSizes.push(ids.length);
    if (ids.length > MAX_COLLECTION)
      throw new SfRequestError(
        400,
        'EXCEEDED_ID_LIMIT',
        `record limit reached. cannot submit more than ${MAX_COLLECTION} records into this call`,
      );
    const undo: (() => void)[] = [];
    const results: DeleteResult[] = ids.map((id) =>
      store.delete(id.trim(), undo, (record) => deleteRefusal(faults, record)),
    );
    const answer = (r: DeleteResult): Record<string, unknown> =>
      r.ok ? { id: r.id, success: true, errors: [] } : { success: false, errors: r.errors };
    if (query.get('allOrNone') === 'true' && results.some((r) => !r.ok)) {
      for (const step of undo.reverse()) step();
      return results.map((r) => (r.ok ? { success: false, errors: [rolledBack] } : answer(r)));
    }
    return results.map(answer);
  };

  const saveResult = (r: UpsertResult): Record<string, unknown> =>
    r.ok ? { id: r.id, success: true, errors: [] } : { id: null, success: false, errors: r.errors };

  /** `POST composite/sobjects`: creates up to 200 records of any types, one save result each, in order. */
  const createCollection = (body: unknown): unknown[] => {
    const { allOrNone, records } = (body ?? {}) as { allOrNone?: unknown; records?: unknown };
    if (!Array.isArray(records))
      throw new SfRequestError(400, 'JSON_PARSER_ERROR', 'The request body must be {allOrNone, records: [...]}');
    stats.collectionSizes.push(records.length);
    if (records.length > MAX_COLLECTION)
      throw new SfRequestError(
        400,
        'EXCEEDED_ID_LIMIT',
        `record limit reached. cannot submit more than ${MAX_COLLECTION} records into this call`,
      );
    const objects = (records as unknown[]).map((record) => {
      if (record === null || typeof record !== 'object' || Array.isArray(record))
        throw new SfRequestError(400, 'JSON_PARSER_ERROR', 'Each record must be a JSON object');
      const type = (record as { attributes?: { type?: unknown } }).attributes?.type;
      if (typeof type !== 'string')
        throw new SfRequestError(
          400,
          'INVALID_TYPE',
          'Must send a concrete entity type: every record needs attributes.type',
        );
      if ('Id' in record) throw new SfRequestError(400, 'INVALID_FIELD', 'Id not allowed in a create: use update');
      return store.object(type);
    });
    const undo: (() => void)[] = [];
    const rule = rejectRule(faults);
    const results = (records as Record<string, unknown>[]).map((record, i) =>
      store.create(objects[i]!, record, undo, rule),
    );
    if (allOrNone === true && results.some((r) => !r.ok)) {
      for (const step of undo.reverse()) step();
      return results.map((r) => (r.ok ? { id: null, success: false, errors: [rolledBack] } : saveResult(r)));
    }
    return results.map(saveResult);
  };

  /** A query answer of at most one batch; the rest stays behind a `nextRecordsUrl`. */
  const queryPage = (
    type: string,
    rows: Record<string, unknown>[],
    total: number,
    version: string,
  ): Record<string, unknown> => {
    const page = rows.slice(0, batchSize);
    const rest = rows.slice(batchSize);
    const records = page.map((r) => ({
      attributes: { type, url: `/services/data/v${version}/sobjects/${type}/${String(r.Id ?? '')}` },
      ...r,
    }));
    if (rest.length === 0) return { totalSize: total, done: true, records };
    const locator = `01g${String(++cursorSeq).padStart(12, '0')}AAA-${total - rest.length}`;
    cursors.set(locator, { type, rows: rest });
    return { totalSize: total, done: false, nextRecordsUrl: `/services/data/v${version}/query/${locator}`, records };
  };

  const describe = (type: string): unknown => {
    const object = store.object(type);
    return {
      name: object.name,
      label: object.name,
      keyPrefix: object.keyPrefix,
      createable: true,
      updateable: true,
      queryable: true,
      // As a real org describes them: ids and checkboxes are never nillable and always defaulted on create.
      fields: object.fields.map((f) => {
        const writable = f.type !== 'id' && f.readOnly !== true;
        return {
          name: f.name,
          label: f.name,
          type: f.type,
          length: f.length ?? 0,
          externalId: f.externalId === true,
          unique: f.unique === true,
          idLookup: f.externalId === true || f.name === 'Id',
          nillable: f.required !== true && f.type !== 'id' && f.type !== 'boolean',
          defaultedOnCreate: f.defaultedOnCreate === true || f.type === 'id' || f.type === 'boolean',
          createable: writable,
          updateable: writable,
          referenceTo: f.referenceTo ? [f.referenceTo] : [],
          relationshipName: f.relationshipName ?? null,
        };
      }),
    };
  };

  /** Routes one authenticated data request; returns [status, body, contentType?]. */
  const route = (
    method: string,
    path: string,
    query: URLSearchParams,
    req: IncomingMessage,
    body: string,
    version: string,
  ): [number, unknown, string?] => {
    const parts = path
      .split('/')
      .filter((p) => p !== '')
      .map(decodeURIComponent);
    const json = (): unknown => {
      try {
        return body === '' ? undefined : JSON.parse(body);
      } catch {
        throw new SfRequestError(400, 'JSON_PARSER_ERROR', 'Unexpected character in the request body');
      }
    };
    const [a, b, c, d] = parts;
    if (method === 'GET' && a === 'sobjects' && c === 'describe' && parts.length === 3) return [200, describe(b!)];
    if (method === 'PATCH' && a === 'sobjects' && parts.length === 4) {
      const object = store.object(b!);
      const extField = store.externalIdField(object, c!);
      const matches = store.findBy(object.name, extField.name, d!);
      if (matches.length > 1)
        return [300, matches.map((m) => `/services/data/v${version}/sobjects/${object.name}/${String(m.Id)}`)];
      const input = json();
      if (input === null || typeof input !== 'object' || Array.isArray(input))
        throw new SfRequestError(400, 'JSON_PARSER_ERROR', 'The body must be a JSON object');
      const result = store.upsert(object, extField, d!, input as Record<string, unknown>, [], rejectRule(faults));
      if (!result.ok)
        return [400, result.errors.map((x) => ({ message: x.message, errorCode: x.statusCode, fields: x.fields }))];
      return [result.created ? 201 : 200, { id: result.id, success: true, errors: [], created: result.created }];
    }
    if (method === 'PATCH' && a === 'composite' && b === 'sobjects' && parts.length === 4)
      return [200, collections(c!, d!, json())];
    if (method === 'POST' && a === 'composite' && b === 'sobjects' && parts.length === 2)
      return [200, createCollection(json())];
    if (method === 'DELETE' && a === 'composite' && b === 'sobjects' && parts.length === 2)
      return [200, destroy(query)];
    if (method === 'POST' && a === 'sobjects' && parts.length === 2) {
      const input = json();
      if (input === null || typeof input !== 'object' || Array.isArray(input))
        throw new SfRequestError(400, 'JSON_PARSER_ERROR', 'The body must be a JSON object');
      const result = store.create(store.object(b!), input as Record<string, unknown>, [], rejectRule(faults));
      if (!result.ok)
        return [400, result.errors.map((x) => ({ message: x.message, errorCode: x.statusCode, fields: x.fields }))];
      return [201, { id: result.id, success: true, errors: [] }];
    }
    if (method === 'DELETE' && a === 'sobjects' && parts.length === 3) {
      const object = store.object(b!);
      if (!c!.startsWith(object.keyPrefix)) throw new SfRequestError(400, 'MALFORMED_ID', `malformed id ${c!}`);
      const result = store.delete(c!, []);
      if (!result.ok)
        return [404, result.errors.map((x) => ({ message: x.message, errorCode: x.statusCode, fields: x.fields }))];
      return [204, undefined, 'text/plain'];
    }
    if (method === 'GET' && a === 'query' && parts.length === 1) {
      const q = query.get('q');
      if (!q) throw new SfRequestError(400, 'MALFORMED_QUERY', 'MALFORMED_QUERY: missing q');
      const rows = runSoql(store, q);
      const type = store.object(/\bFROM\s+(\w+)/i.exec(q)![1]!).name;
      return [200, queryPage(type, rows, rows.length, version)];
    }
    if (method === 'GET' && a === 'query' && parts.length === 2) {
      const cursor = cursors.get(b!);
      if (cursor === undefined) throw new SfRequestError(400, 'INVALID_QUERY_LOCATOR', 'invalid query locator');
      cursors.delete(b!);
      const total = Number(/-(\d+)$/.exec(b!)?.[1] ?? 0) + cursor.rows.length;
      return [200, queryPage(cursor.type, cursor.rows, total, version)];
    }
    if (a === 'jobs' && b === 'ingest') {
      if (method === 'POST' && parts.length === 2)
        return [200, bulk.create(json() as Record<string, unknown>, version)];
      if (method === 'PUT' && d === 'batches' && parts.length === 4) {
        bulk.upload(c!, req.headers['content-type'], body);
        return [201, undefined, 'text/plain'];
      }
      if (method === 'PATCH' && parts.length === 3)
        return [200, bulk.changeState(c!, json() as Record<string, unknown>)];
      if (method === 'GET' && parts.length === 3) return [200, bulk.get(c!)];
      if (method === 'DELETE' && parts.length === 3) {
        bulk.delete(c!);
        return [204, undefined, 'text/plain'];
      }
      if (
        method === 'GET' &&
        parts.length === 4 &&
        (d === 'successfulResults' || d === 'failedResults' || d === 'unprocessedrecords')
      ) {
        return [200, bulk.results(c!, d), 'text/csv'];
      }
    }
    throw new SfRequestError(404, 'NOT_FOUND', 'The requested resource does not exist');
  };

  /** The OpenID userinfo of the token's user: the org it belongs to. */
  const userinfo = (req: IncomingMessage, res: ServerResponse): void => {
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const expiry = bearer === undefined ? undefined : sessions.get(bearer);
    if (expiry === undefined || expiry < Date.now())
      return send(res, 403, 'Bad_OAuth_Token', 'text/plain;charset=UTF-8');
    send(res, 200, {
      sub: `${url}/id/${orgId}/${USER_ID}`,
      user_id: USER_ID,
      organization_id: orgId,
      preferred_username: 'integration@example.com',
    });
  };

  const api = (
    req: IncomingMessage,
    res: ServerResponse,
    body: string,
    pathname: string,
    query: URLSearchParams,
  ): void => {
    const m = /^\/services\/data\/v([^/]+)(\/.*)?$/.exec(pathname);
    const versionText = m?.[1] ?? '';
    if (!/^\d{2,3}\.\d$/.test(versionText))
      return sendError(res, 404, 'NOT_FOUND', 'The requested resource does not exist');
    if (Number(versionText) < MIN_VERSION)
      return sendError(
        res,
        400,
        'UNSUPPORTED_API_VERSION',
        `API version ${versionText} is not supported here; use ${MIN_VERSION}.0 or later`,
      );
    const auth = req.headers.authorization ?? '';
    const bearer = /^(Bearer|OAuth) (.+)$/.exec(auth)?.[2];
    const expiry = bearer === undefined ? undefined : sessions.get(bearer);
    if (expiry === undefined || expiry < Date.now())
      return sendError(res, 401, 'INVALID_SESSION_ID', 'Session expired or invalid');
    if (stats.apiUsage >= limit) {
      res.setHeader('Sforce-Limit-Info', `api-usage=${stats.apiUsage}/${limit}`);
      return sendError(res, 403, 'REQUEST_LIMIT_EXCEEDED', 'TotalRequests Limit exceeded.');
    }
    stats.apiUsage++;
    res.setHeader('Sforce-Limit-Info', `api-usage=${stats.apiUsage}/${limit}`);
    try {
      const [status, out, contentType] = route(req.method ?? 'GET', m?.[2] ?? '/', query, req, body, versionText);
      send(res, status, out, contentType);
    } catch (err) {
      if (!(err instanceof SfRequestError)) throw err;
      sendError(res, err.status, err.errorCode, err.message);
    }
  };

  const inFlight = new Map<string, number>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const parsed = new URL(req.url ?? '/', 'http://emulator');
      const label = `${req.method} ${routeLabel(parsed.pathname)}`;
      stats.requests[label] = (stats.requests[label] ?? 0) + 1;
      inFlight.set(label, (inFlight.get(label) ?? 0) + 1);
      stats.peakInFlight[label] = Math.max(stats.peakInFlight[label] ?? 0, inFlight.get(label) ?? 0);
      res.on('close', () => inFlight.set(label, (inFlight.get(label) ?? 1) - 1));
      const handle = (): void => {
        try {
          if (hangs(faults, label)) return;
          if (parsed.pathname === '/services/oauth2/token') return token(req, res, body);
          if (parsed.pathname === '/services/oauth2/userinfo') return userinfo(req, res);
          const injected =
            faults.sequence?.shift() ??
            routeFault(faults, label) ??
            (faults.errorShare && random() < faults.errorShare ? (faults.status ?? 503) : undefined);
          if (injected !== undefined) {
            const { contentType, body: faultText } = faultBody(injected);
            return send(res, injected, faultText, contentType);
          }
          if (parsed.pathname.startsWith('/services/data/'))
            return api(req, res, body, parsed.pathname, parsed.searchParams);
          sendError(res, 404, 'NOT_FOUND', 'The requested resource does not exist');
        } catch (err) {
          sendError(res, 500, 'UNKNOWN_EXCEPTION', err instanceof Error ? err.message : 'unexpected');
        }
      };
      if (faults.latencyMs) setTimeout(handle, faults.latencyMs);
      else handle();
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    state: store,
    bulk,
    faults,
    stats,
    orgId,
    expireAllSessions: () => sessions.clear(),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A stable label for stats: the path after the version with ids and values dropped. */
function routeLabel(pathname: string): string {
  if (pathname === '/services/oauth2/token') return 'oauth2/token';
  const rest = pathname.replace(/^\/services\/data\/v[^/]+\//, '');
  if (rest.startsWith('jobs/ingest')) return rest.replace(/^jobs\/ingest\/[^/]+/, 'jobs/ingest/{id}');
  if (rest.startsWith('composite/sobjects')) return 'composite/sobjects';
  if (rest.startsWith('sobjects/') && rest.endsWith('/describe')) return 'sobjects/describe';
  if (rest.startsWith('sobjects/')) return 'sobjects';
  if (rest.startsWith('query/')) return 'query/{locator}';
  return rest;
}
