/**
 * The Sales-Intelligence API emulator on node:http. Order of checks on an API route:
 * latency → auth (401 first: an unknown caller has no account to limit) → rate limit (429) → injected 5xx →
 * route (400 validation, 400 cursor errors, 402 budget, 422 depth, 200). See docs/api-assumptions.md.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { silentLogger } from '../../shared/logger.js';
import { BudgetLedger } from './budget-ledger.js';
import { handleControl } from './control-routes.js';
import { CompanyChurn } from './company-churn.js';
import { buildDataset } from './dataset.js';
import { DICTIONARIES, type DictionaryName } from './dictionaries.js';
import { StatsBook } from './emulator-stats.js';
import { FaultState } from './fault-state.js';
import { BodyTooLargeError, message, readBody, sendReply, type Reply } from './http-io.js';
import { LiveIndex } from './live-index.js';
import { RateLimiter, formatSeconds, rateLimitHeaders } from './rate-limiter.js';
import { API_JOURNEY_DEPTH, SearchService } from './search-service.js';
import { settingsFor } from './settings-data.js';
import { TokenStore } from './token-store.js';
import type {
  ChurnedCompany,
  EmulatorAccount,
  EmulatorRoute,
  RateOperation,
  SalesIntelEmulator,
  SalesIntelEmulatorOptions,
} from './types.js';

const DEFAULT_ACCOUNT: EmulatorAccount = { clientId: 'demo-client', clientSecret: 'demo-secret', accountId: 'demo' };
const DEFAULT_LIMIT = 500;
const DEFAULT_ALLOTMENT = 1_000_000_000;
const DEFAULT_PERIOD_SECONDS = 30 * 86_400;
const BEARER = /^Bearer ([A-Za-z0-9\-._~+/]+=*)$/;

interface Route {
  name: EmulatorRoute;
  method: string;
  operation?: RateOperation;
}

function resolveRoute(path: string): Route | undefined {
  switch (path) {
    case '/oauth/token':
      return { name: 'token', method: 'POST' };
    case '/health':
      return { name: 'health', method: 'GET' };
    case '/companies/filter':
      return { name: 'companies.search', method: 'POST', operation: 'search' };
    case '/persons/filter':
      return { name: 'persons.search', method: 'POST', operation: 'search' };
    case '/companies/filter/count':
      return { name: 'companies.count', method: 'POST', operation: 'count' };
    case '/persons/filter/count':
      return { name: 'persons.count', method: 'POST', operation: 'count' };
  }
  if (path.startsWith('/dictionaries/')) return { name: 'dictionary', method: 'GET', operation: 'dictionary' };
  if (path.startsWith('/settings/')) return { name: 'settings', method: 'GET', operation: 'dictionary' };
  return undefined;
}

function normaliseBasePath(basePath: string | undefined): string {
  if (!basePath || basePath === '/') return '';
  return `/${basePath.replace(/^\/+|\/+$/g, '')}`;
}

export async function startSalesIntelEmulator(options: SalesIntelEmulatorOptions = {}): Promise<SalesIntelEmulator> {
  const basePath = normaliseBasePath(options.basePath);
  const seed = options.seed ?? 1;
  const logger = options.logger ?? silentLogger;
  const windowSeconds = options.windowSeconds ?? 60;
  const accounts = new Map((options.accounts ?? [DEFAULT_ACCOUNT]).map((a) => [a.accountId, a]));
  const byClient = new Map([...accounts.values()].map((a) => [a.clientId, a]));
  const data = buildDataset(
    seed,
    options.companies ?? 10_000,
    options.persons ?? 50_000,
    options.personReserveEvery,
    options.companyReserveEvery,
  );
  const tokens = new TokenStore(options.tokenLifetimeSeconds ?? 3600);
  const limiter = new RateLimiter(windowSeconds);
  const budget = new BudgetLedger(options.tokenClock ?? (() => Date.now()));
  for (const a of accounts.values())
    budget.open(a.accountId, a.tokenAllotment ?? DEFAULT_ALLOTMENT, a.tokenPeriodSeconds ?? DEFAULT_PERIOD_SECONDS);
  const stats = new StatsBook();
  const faults = new FaultState(seed, () => tokens.expireAll());
  if (options.faults) faults.set(options.faults);
  const live = new LiveIndex(data);
  const churn = new CompanyChurn(data, live);
  const search = new SearchService(data, live, budget, faults, {
    recordStyle: options.recordStyle ?? 'camel',
    cursorStyle: options.cursorStyle ?? 'json-v1',
    personCompany: options.personCompany ?? false,
    journeyDepth: options.journeyDepth ?? API_JOURNEY_DEPTH,
  });

  function tokenEndpoint(req: IncomingMessage, rawBody: string): Reply {
    const noStore = { 'Cache-Control': 'no-store' };
    if (!(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) {
      return {
        status: 400,
        body: { error: 'invalid_request', error_description: 'body must be application/x-www-form-urlencoded' },
        headers: noStore,
      };
    }
    const form = new URLSearchParams(rawBody);
    const grant = form.get('grant_type');
    if (grant === null)
      return {
        status: 400,
        body: { error: 'invalid_request', error_description: 'grant_type is required' },
        headers: noStore,
      };
    if (grant !== 'client_credentials')
      return {
        status: 400,
        body: { error: 'unsupported_grant_type', error_description: 'only client_credentials' },
        headers: noStore,
      };
    let clientId = form.get('client_id');
    let clientSecret = form.get('client_secret');
    const basic = /^Basic ([A-Za-z0-9+/=]+)$/.exec(req.headers.authorization ?? '');
    if (basic) {
      const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon > 0) {
        clientId = decodeURIComponent(decoded.slice(0, colon));
        clientSecret = decodeURIComponent(decoded.slice(colon + 1));
      }
    }
    const account = clientId === null ? undefined : byClient.get(clientId);
    if (!account || account.clientSecret !== clientSecret) {
      return {
        status: 401,
        body: { error: 'invalid_client', error_description: 'client authentication failed' },
        headers: { ...noStore, 'WWW-Authenticate': 'Basic' },
      };
    }
    stats.of(account.accountId).requests.token++;
    const issued = tokens.issue(account.accountId);
    return {
      status: 200,
      body: { access_token: issued.accessToken, token_type: 'Bearer', expires_in: issued.expiresIn },
      headers: noStore,
    };
  }

  function apiRoute(
    route: Route,
    path: string,
    accountId: string,
    params: URLSearchParams,
    rawBody: string,
    headers: Record<string, string>,
  ): Reply {
    const s = stats.of(accountId);
    const ctx = { accountId, stats: s, headers };
    switch (route.name) {
      case 'companies.search':
        return search.search('companies', params, rawBody, ctx);
      case 'persons.search':
        return search.search('persons', params, rawBody, ctx);
      case 'companies.count':
        return search.count('companies', params, rawBody, ctx);
      case 'persons.count':
        return search.count('persons', params, rawBody, ctx);
      case 'dictionary': {
        const name = path.slice('/dictionaries/'.length) as DictionaryName;
        const list = DICTIONARIES[name] as (typeof DICTIONARIES)[DictionaryName] | undefined;
        if (!list) return message(404, 'unknown dictionary', headers);
        const body =
          options.dictionaryStyle === 'values'
            ? { dictionary: name, values: list.map((e) => ({ code: e.value, label: e.label })) }
            : { data: list };
        return { status: 200, body, headers };
      }
      default: {
        const settings = settingsFor(path.slice('/settings/'.length), accountId);
        return settings
          ? { status: 200, body: { data: settings }, headers }
          : message(404, 'unknown settings', headers);
      }
    }
  }

  const inFlight = new Map<string, number>();
  /** Counts the account's requests of an operation under way (latency included) for `peakInFlight`. */
  async function handle(req: IncomingMessage, rawBody: string): Promise<Reply> {
    const url = new URL(req.url ?? '/', 'http://emulator');
    const op = resolveRoute(url.pathname.slice(basePath.length) || '/')?.operation;
    const bearer = BEARER.exec(req.headers.authorization ?? '');
    const accountId = bearer ? tokens.verify(bearer[1]!) : undefined;
    if (!op || accountId === undefined || !accounts.has(accountId)) return handleRequest(req, rawBody);
    const key = `${accountId}|${op}`;
    const now = (inFlight.get(key) ?? 0) + 1;
    inFlight.set(key, now);
    const s = stats.of(accountId);
    s.peakInFlight[op] = Math.max(s.peakInFlight[op], now);
    try {
      return await handleRequest(req, rawBody);
    } finally {
      inFlight.set(key, (inFlight.get(key) ?? 1) - 1);
    }
  }

  async function handleRequest(req: IncomingMessage, rawBody: string): Promise<Reply> {
    const url = new URL(req.url ?? '/', 'http://emulator');
    const method = req.method ?? 'GET';
    if (basePath !== '' && url.pathname !== basePath && !url.pathname.startsWith(`${basePath}/`))
      return message(404, 'not found');
    const path = url.pathname.slice(basePath.length) || '/';
    if (path.startsWith('/__emulator/'))
      return handleControl(emulator, method, path.slice('/__emulator/'.length), url.searchParams, rawBody);
    const delay = faults.latencyMs();
    if (delay > 0) await sleep(delay);
    const route = resolveRoute(path);
    if (!route || (route.name === 'settings' && options.settingsRoutes === false)) return message(404, 'not found');
    if (method !== route.method) return { ...message(405, `use ${route.method}`), headers: { Allow: route.method } };
    if (route.name === 'health') {
      stats.of('').requests.health++;
      return faults.healthDown
        ? { status: 503, body: { status: 'unavailable' } }
        : { status: 200, body: { status: 'ok' } };
    }
    if (route.name === 'token') return tokenEndpoint(req, rawBody);
    const bearer = BEARER.exec(req.headers.authorization ?? '');
    const accountId = bearer ? tokens.verify(bearer[1]!) : undefined;
    const account = accountId === undefined ? undefined : accounts.get(accountId);
    if (!account) {
      stats.of('').served401++;
      const why = !req.headers.authorization
        ? 'missing bearer token'
        : !bearer
          ? 'malformed authorization header'
          : 'invalid or expired token';
      return { ...message(401, why), headers: { 'WWW-Authenticate': 'Bearer' } };
    }
    faults.countAuthenticated();
    const s = stats.of(account.accountId);
    s.requests[route.name]++;
    const op = route.operation!;
    s.operations[op]++;
    let headers: Record<string, string> = {};
    const forced = faults.take('force429');
    if (!faults.limiterDown || forced) {
      const decision = limiter.hit(account.accountId, op, account.limits?.[op] ?? DEFAULT_LIMIT, forced);
      if (!faults.limiterDown) headers = rateLimitHeaders(decision, options.resetRounding);
      s.peakPerWindow[op] = Math.max(s.peakPerWindow[op], decision.count);
      if (!decision.allowed) {
        s.served429[op]++;
        const wait = Math.min(60, decision.resetSeconds);
        const retryAfter = Number(formatSeconds(wait, windowSeconds));
        return {
          status: 429,
          body: {
            error: 'rate_limit_exceeded',
            message: `rate limit of the ${op} operation exceeded`,
            retryAfter,
            operation: op,
            window: 'sustained',
          },
          headers: { ...headers, 'Retry-After': formatSeconds(wait, windowSeconds) },
        };
      }
    }
    const injected = faults.serverError(route.name);
    if (injected !== undefined) {
      s.served5xx++;
      return message(injected, 'injected server error', headers);
    }
    const reply = apiRoute(route, path, account.accountId, url.searchParams, rawBody, headers);
    if (reply.status === 200 && route.operation === 'search') bendPage(reply, faults.takeBentPage());
    if (reply.status === 400) s.served400++;
    else if (reply.status === 402) s.served402++;
    else if (reply.status === 422) s.served422++;
    return reply;
  }

  function bendPage(reply: Reply, bent: ReturnType<FaultState['takeBentPage']>): void {
    if (!bent) return;
    const page = (reply.body as { page?: Record<string, unknown> }).page;
    if (bent.nextCursor !== undefined && page) page.nextCursor = bent.nextCursor;
    if (bent.padBytes !== undefined) reply.padBytes = bent.padBytes;
  }

  async function onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let reply: Reply;
    try {
      reply = await handle(req, await readBody(req));
    } catch (err) {
      if (!(err instanceof BodyTooLargeError)) {
        stats.of('').served5xx++;
        logger.error({ err, path: req.url?.split('?')[0] }, 'sales-intel emulator internal error');
      }
      reply =
        err instanceof BodyTooLargeError
          ? message(413, 'request body too large')
          : message(500, 'internal emulator error');
    }
    if (!res.destroyed) sendReply(res, reply);
  }

  const server = createServer((req, res) => void onRequest(req, res));
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}${basePath}`;

  const emulator: SalesIntelEmulator = {
    url,
    tokenUrl: `${url}/oauth/token`,
    port: address.port,
    faults,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
    stats: (accountId) => stats.snapshot(accountId),
    resetStats: () => stats.reset(),
    setTokenBalance: (accountId, remaining, resetInSeconds) => budget.set(accountId, remaining, resetInSeconds),
    expireAllTokens: () => tokens.expireAll(),
    insertPersons: (count, filter, spread) => {
      const ids = search.insertPersons(count, JSON.stringify(filter ?? {}), spread);
      if (ids.some((x) => typeof x !== 'string')) throw new RangeError(`invalid filter: ${JSON.stringify(ids)}`);
      return ids as string[];
    },
    setCompanyHeadcount: (id, headcount) => {
      if (!search.setCompanyHeadcount(id, headcount)) throw new RangeError(`unknown company ${id}`);
    },
    setCompanyHeadcounts: (moves) => {
      const unknown = search.setCompanyHeadcounts(moves);
      if (unknown !== undefined) throw new RangeError(`unknown company ${unknown}`);
    },
    churnCompanies: (share, churnSeed, filters) => {
      const changes = churn.apply(share, churnSeed, filters ?? {});
      if (!changes.every((c) => 'change' in c)) throw new RangeError(`invalid filter: ${JSON.stringify(changes)}`);
      search.companiesChanged();
      return changes as ChurnedCompany[];
    },
  };
  return emulator;
}
