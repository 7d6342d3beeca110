import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { Queue } from 'bullmq';
import express from 'express';
import type { Redis } from 'ioredis';
import type { SavedSearch } from '../config/index.js';
import { SYNC_QUEUE } from '../queue/index.js';
import { createRejectStore } from '../crm/index.js';
import { listRuns } from '../runs/run-history.js';
import { ParsedOverviews } from '../runs/parsed-overviews.js';
import { AppError } from '../shared/app-error.js';
import type { Logger } from '../shared/logger.js';
import { basicAuth, type BasicCredentials } from './basic-auth.js';
import { DependencyUnavailableError, redisAnswers, withDeadline } from './bounded.js';
import type { GovernorSnapshotSource } from './governor-snapshot.js';
import { LoginThrottle, type LoginThrottleOptions } from './login-throttle.js';
import { isLoopbackName, loopbackHostOnly } from './loopback.js';
import { createMetricsEndpoint } from './metrics-registry.js';
import { rejectsCsv, rejectsPage } from './rejects-page.js';
import { malformedPathRefused, requestErrorHandler } from './request-errors.js';
import { overviewHtml, searchHtml } from './cockpit-pages.js';
import { isRunActionPath, runActionsRouter } from './run-actions.js';
import { sameOriginGuard } from './same-origin-guard.js';
import { securityHeaders } from './security-headers.js';

export interface DashboardOptions {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any job data/result types
  queues: readonly Queue<any, any>[];
  /** Read by /metrics, /readyz and the pages (bounded PING first). */
  redis: Redis;
  /** Key prefix of run history, totals, rejects and the budget ledger (the queue prefix). */
  prefix?: string;
  /** The current saved searches: a getter, since SIGHUP swaps the config. */
  searches?: () => readonly SavedSearch[];
  /** Credit caps of source.credits, exported as prospect_sync_credits_cap. */
  creditCaps?: () => { maxPerRun?: number; maxPerDay?: number };
  /** `source.tokens.reserve`: the forecast on /runs leaves it out of what the searches may spend. */
  tokenReserve?: () => number;
  /** Rate-governor state per remote/account/operation (listGovernorSnapshots); absent: no api_* samples. */
  governorSnapshots?: GovernorSnapshotSource;
  /** The API's health probe (`${source.baseUrl}/health`), checked by /readyz. */
  apiHealthUrl?: string;
  host?: string;
  port?: number;
  /** Required unless `host` is a loopback address. */
  auth?: BasicCredentials | undefined;
  /**
   * Whether bull-board may act on jobs and queues (add, retry, remove, pause, obliterate...); default false: read-only.
   */
  adminActions?: boolean;
  /** Whether /runs pages offer "Run now" and "Full resync" (CSRF-checked forms); default: `adminActions`. */
  runActions?: boolean;
  /** With `adminActions`: true, every queue read-only after all; or the names of the queues kept read-only. */
  readOnly?: boolean | readonly string[];
  /** Whether /metrics needs the same credentials (when `auth` is set); default: yes. */
  metricsAuth?: boolean;
  /** Failed logins per client before 429 (default 10 in 5 min). */
  loginThrottle?: LoginThrottleOptions;
  /** Bound on every Redis read and probe of a request (ms, default 2000): past it the route answers 503. */
  timeoutMs?: number;
  logger: Logger;
}

export interface DashboardServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

export class DashboardAuthError extends AppError {
  constructor(host: string) {
    super(
      'dashboard_auth_required',
      `refusing to serve the dashboard on ${host} without authentication: set server.auth (or bind to 127.0.0.1)`,
      {
        details: { host },
      },
    );
  }
}

async function apiAnswers(url: string, timeoutMs: number): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    await res.body?.cancel();
    return res.ok;
  } catch {
    return false;
  }
}

type Handler = (req: express.Request, res: express.Response) => Promise<void>;

/**
 * /runs, /runs/<search>, /rejects/<search> (HTML) and /api/runs/<search> (JSON); bull-board at /admin/queues
 * (read-only unless `adminActions`); /healthz and /readyz without auth, /metrics with it unless `metricsAuth: false`.
 * Every route that reads Redis pings it first and bounds its reads, answering 503 with a reason instead of hanging
 * while Redis is down. Safe by default: security headers, same-origin JSON for changes, without auth only loopback
 * Host names and no proxy.
 */
export async function startDashboardServer(opts: DashboardOptions): Promise<DashboardServer> {
  const host = opts.host ?? '127.0.0.1';
  if (!opts.auth && !isLoopbackName(host)) throw new DashboardAuthError(host);
  const timeoutMs = opts.timeoutMs ?? 2_000;
  const prefix = opts.prefix ?? 'prospect-sync';
  const searches = opts.searches ?? (() => []);
  const runActions = opts.runActions ?? opts.adminActions === true;
  const views = {
    redis: opts.redis,
    prefix,
    queues: opts.queues,
    searches,
    creditCaps: opts.creditCaps,
    tokenReserve: opts.tokenReserve,
    runActions,
    // Kept for the server's life: /runs parses only the overviews that changed since its last render.
    parsed: new ParsedOverviews(),
  };

  const adminActions = opts.adminActions === true;
  const readOnly = (name: string): boolean =>
    !adminActions || opts.readOnly === true || (Array.isArray(opts.readOnly) && opts.readOnly.includes(name));
  const serverAdapter = new ExpressAdapter();
  serverAdapter.setBasePath('/admin/queues');
  createBullBoard({
    queues: opts.queues.map((q) => new BullMQAdapter(q, { readOnlyMode: readOnly(q.name) })),
    serverAdapter,
    options: {
      uiConfig: {
        boardTitle: 'prospect-sync',
        miscLinks: [
          { text: 'Runs', url: '/runs' },
          { text: 'Metrics', url: '/metrics' },
        ],
      },
    },
  });
  const metrics = createMetricsEndpoint({
    redis: opts.redis,
    prefix,
    queues: opts.queues,
    searches,
    timeoutMs,
    ...(opts.creditCaps ? { creditCaps: opts.creditCaps } : {}),
    ...(opts.governorSnapshots ? { governorSnapshots: opts.governorSnapshots } : {}),
  });

  const app = express();
  app.disable('x-powered-by');
  const auth = opts.auth ? basicAuth(opts.auth, undefined, new LoginThrottle(opts.loginThrottle)) : undefined;
  app.use(securityHeaders('/admin/queues/static/'));
  app.use(malformedPathRefused());
  if (!auth) app.use(loopbackHostOnly());
  app.use(sameOriginGuard(isRunActionPath));

  // Kubernetes style: liveness never depends on Redis (a Redis outage must not restart every pod).
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    const [redis, api] = await Promise.all([
      redisAnswers(opts.redis, timeoutMs),
      opts.apiHealthUrl ? apiAnswers(opts.apiHealthUrl, timeoutMs) : Promise.resolve(undefined),
    ]);
    const ready = redis && api !== false;
    const reasons = [
      ...(redis ? [] : ['redis did not answer a PING']),
      ...(api === false ? ['the API health probe failed'] : []),
    ];
    res.status(ready ? 200 : 503).json({
      status: ready ? 'ready' : 'unavailable',
      checks: { redis: redis ? 'up' : 'down', api: api === undefined ? 'not_checked' : api ? 'up' : 'down' },
      ...(reasons.length ? { reason: reasons.join('; ') } : {}),
    });
  });

  const metricsHandlers: express.RequestHandler[] = auth && opts.metricsAuth !== false ? [auth] : [];
  app.get('/metrics', ...metricsHandlers, async (_req, res) => {
    const { status, body } = await metrics.render();
    res.status(status).type(metrics.contentType).send(body);
  });

  if (auth) app.use(auth);
  if (!adminActions) {
    // Not only bull-board's per-queue flag: no route under the board changes anything unless the user opted in.
    app.use('/admin/queues/api', (req, res, next) => {
      if (req.method === 'GET' || req.method === 'HEAD') next();
      else
        res
          .status(405)
          .type('text/plain')
          .send('the queue board is read-only: set server.adminActions: true to act on jobs and queues\n');
    });
  }
  // Last line of defence for handlers we do not own (bull-board): whatever hangs on Redis, the client gets a 503.
  app.use((_req, res, next) => {
    const timer = setTimeout(() => {
      if (!res.headersSent) res.status(503).type('text/plain').send('unavailable: no answer from redis in time\n');
    }, timeoutMs * 3);
    res.on('close', () => clearTimeout(timer));
    next();
  });
  // Redis down: answer 503 at once rather than letting a command wait for the reconnect (bull-board hung 600 s).
  app.use(async (_req, res, next) => {
    if (await redisAnswers(opts.redis, timeoutMs)) next();
    else res.status(503).type('text/plain').send('unavailable: redis did not answer a PING\n');
  });
  const bounded =
    (handler: Handler): express.RequestHandler =>
    async (req, res, next) => {
      try {
        await withDeadline(handler(req, res), timeoutMs * 2, 'redis');
      } catch (err) {
        if (err instanceof DependencyUnavailableError && !res.headersSent)
          res.status(503).type('text/plain').send(`unavailable: ${err.message}\n`);
        else next(err);
      }
    };
  const known = (search: string): boolean => searches().some((s) => s.name === search);
  const limitOf = (req: express.Request): number => Math.min(200, Math.max(1, Number(req.query.limit ?? 20) || 20));
  const runsJson = async (req: express.Request<{ search: string }>, res: express.Response): Promise<void> => {
    const search = req.params.search;
    if (!known(search)) res.status(404).json({ error: 'unknown_search' });
    else res.json({ search, runs: await listRuns(opts.redis, search, { prefix, limit: limitOf(req) }) });
  };

  app.get('/', (_req, res) => res.redirect('/runs'));
  app.get(
    '/runs',
    bounded(async (req, res) => {
      res.type('html').send(await overviewHtml(views, req, res));
    }),
  );
  app.get(
    '/api/runs/:search',
    bounded((req, res) => runsJson(req as express.Request<{ search: string }>, res)),
  );
  app.get(
    '/runs/:search',
    bounded(async (req, res) => {
      const search = String(req.params.search);
      // HTML only for clients that ask for it by name (browsers): scripts and `curl` (Accept: */*) rely on its JSON.
      if (!/\btext\/html\b/.test(req.get('accept') ?? ''))
        return runsJson(req as express.Request<{ search: string }>, res);
      if (!known(search)) {
        res.status(404).type('text/plain').send('unknown search\n');
        return;
      }
      res.type('html').send(await searchHtml(views, search, limitOf(req), req, res));
    }),
  );
  const rejectStore = createRejectStore(opts.redis, prefix);
  app.get(
    '/rejects/:file',
    bounded(async (req, res) => {
      const file = String(req.params.file);
      const csv = file.endsWith('.csv');
      const search = csv ? file.slice(0, -4) : file;
      if (!known(search)) {
        res.status(404).type('text/plain').send('unknown search\n');
        return;
      }
      const list = await rejectStore.list(search, { limit: 1000 });
      if (csv) {
        res.type('text/csv').attachment(`rejects-${search}.csv`).send(rejectsCsv(list));
        return;
      }
      res.type('html').send(rejectsPage(search, list, await rejectStore.pendingCount(search)));
    }),
  );
  const sync = opts.queues.find((q) => q.name === SYNC_QUEUE);
  // the options' queues are untyped; this is the sync queue
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  if (runActions && sync) app.use(runActionsRouter(sync as Queue<any, any>, known));
  app.use('/admin/queues', serverAdapter.getRouter() as express.Router);
  app.use(requestErrorHandler(opts.logger));

  const server: Server = await new Promise((resolve, reject) => {
    const s = app.listen(opts.port ?? 3000, host, (err?: Error) => (err ? reject(err) : resolve(s)));
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  opts.logger.info({ url, auth: Boolean(opts.auth) }, 'dashboard listening');
  return {
    url,
    port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}
