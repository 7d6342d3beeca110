import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { Queue } from 'bullmq';
import express from 'express';
import type { Redis } from 'ioredis';
import { AppError } from '../shared/app-error.js';
import type { Logger } from '../shared/logger.js';
import { basicAuth, type BasicCredentials } from './basic-auth.js';
import { mergePrometheusText } from './prometheus-text.js';

export interface DashboardOptions {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any job data/result types
  queues: readonly Queue<any, any>[];
  /** Pinged by /healthz. */
  redis: Redis;
  host?: string;
  port?: number;
  /** Required unless `host` is a loopback address. */
  auth?: BasicCredentials | undefined;
  /** true: every queue read-only on the board; or the names of the read-only queues. */
  readOnly?: boolean | readonly string[];
  /** Whether /metrics needs the same credentials (default false: scrapers often can't send them). */
  metricsAuth?: boolean;
  /** Recent run summaries of a search (newest first), or undefined for an unknown search: served at /runs/:search. */
  runs?: (search: string, limit: number) => Promise<readonly unknown[] | undefined>;
  logger: Logger;
}

export interface DashboardServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

export class DashboardAuthError extends AppError {
  constructor(host: string) {
    super('dashboard_auth_required', `refusing to serve the dashboard on ${host} without authentication: set server.auth (or bind to 127.0.0.1)`, {
      details: { host },
    });
  }
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);
const PING_TIMEOUT_MS = 2_000;

async function redisUp(redis: Redis): Promise<boolean> {
  if (redis.status !== 'ready') return false;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), PING_TIMEOUT_MS);
  });
  const pong = redis.ping().then((r) => r === 'PONG', () => false);
  const up = await Promise.race([pong, timeout]);
  clearTimeout(timer);
  return up;
}

/** bull-board at /, plus /healthz (no auth), /metrics (Prometheus text) and /runs/:search (JSON). */
export async function startDashboardServer(opts: DashboardOptions): Promise<DashboardServer> {
  const host = opts.host ?? '127.0.0.1';
  if (!opts.auth && !LOOPBACK.has(host)) throw new DashboardAuthError(host);

  const readOnly = (name: string): boolean =>
    opts.readOnly === true || (Array.isArray(opts.readOnly) && opts.readOnly.includes(name));
  const serverAdapter = new ExpressAdapter();
  serverAdapter.setBasePath('/');
  createBullBoard({
    queues: opts.queues.map((q) => new BullMQAdapter(q, { readOnlyMode: readOnly(q.name) })),
    serverAdapter,
    options: { uiConfig: { boardTitle: 'prospect-sync' } },
  });

  const app = express();
  app.disable('x-powered-by');
  const auth = opts.auth ? basicAuth(opts.auth) : undefined;

  app.get('/healthz', async (_req, res) => {
    const up = await redisUp(opts.redis);
    res.status(up ? 200 : 503).json({ status: up ? 'ok' : 'unavailable', redis: up ? 'up' : 'down' });
  });

  const metricsHandlers: express.RequestHandler[] = opts.metricsAuth && auth ? [auth] : [];
  app.get('/metrics', ...metricsHandlers, async (_req, res) => {
    const up = await redisUp(opts.redis);
    const own = [
      '# HELP prospect_sync_redis_up Whether Redis answered a PING (1) or not (0)',
      '# TYPE prospect_sync_redis_up gauge',
      `prospect_sync_redis_up ${up ? 1 : 0}`,
    ].join('\n');
    if (!up) {
      res.status(503).type('text/plain; version=0.0.4').send(mergePrometheusText([own]));
      return;
    }
    const perQueue = await Promise.all(
      opts.queues.map(async (q) => {
        const schedulers = await q.getJobSchedulersCount();
        const text = await q.exportPrometheusMetrics();
        return `${text}\n# HELP prospect_sync_job_schedulers Job schedulers (scheduled saved searches) on the queue\n# TYPE prospect_sync_job_schedulers gauge\nprospect_sync_job_schedulers{queue="${q.name}"} ${schedulers}`;
      }),
    );
    res.type('text/plain; version=0.0.4').send(mergePrometheusText([own, ...perQueue]));
  });

  if (auth) app.use(auth);
  const runs = opts.runs;
  if (runs) {
    app.get('/runs/:search', async (req, res) => {
      const limit = Math.min(200, Math.max(1, Number(req.query.limit ?? 20) || 20));
      const list = await runs(req.params.search, limit);
      if (list === undefined) res.status(404).json({ error: 'unknown_search' });
      else res.json({ search: req.params.search, runs: list });
    });
  }
  app.use('/', serverAdapter.getRouter() as express.Router);
  app.use(((err, _req, res, _next) => {
    opts.logger.error({ err }, 'dashboard request failed');
    res.status(500).type('text/plain').send('internal error\n');
  }) as express.ErrorRequestHandler);

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
