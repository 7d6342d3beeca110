/**
 * `start`: scheduler + workers + dashboard in one process. `worker`, `scheduler` and `dashboard` run one role each
 * through the same `startRoles`, which `demo` reuses in-process.
 */
import { parseArgs } from 'node:util';
import type { Redis } from 'ioredis';
import { loadConfig, type AppConfig } from '../../config/index.js';
import {
  exitOnSignals,
  openQueues,
  queuePrefix,
  startScheduler,
  startSyncWorker,
  type AppQueues,
  type SchedulerHandle,
  type SyncProcessor,
  type SyncWorkerHandle,
} from '../../queue/index.js';
import { loadCommandConfig } from '../../runs/cli-context.js';
import { startDashboardServer, type DashboardServer } from '../../server/index.js';
import { startAlerting, type Alerting } from '../../alerts/index.js';
import { createLogger, type Logger } from '../../shared/logger.js';
import { createRedis } from '../../shared/redis.js';
import { EXIT } from '../exit-codes.js';

export interface RoleSet {
  scheduler: boolean;
  worker: boolean;
  dashboard: boolean;
}

export interface StartRolesOptions {
  roles: RoleSet;
  config: AppConfig;
  /** Re-read on SIGHUP / reload. */
  configPath: string;
  logger: Logger;
  redisUrl?: string;
  /** BullMQ prefix; default $QUEUE_PREFIX or 'prospect-sync'. */
  prefix?: string;
  /** Default: the sync job of jobs/sync-search.ts. */
  processor?: SyncProcessor;
  concurrency?: number;
  dashboard?: { port?: number; host?: string };
}

export interface RunningRoles {
  connection: Redis;
  prefix: string;
  queues: AppQueues;
  scheduler?: SchedulerHandle;
  worker?: SyncWorkerHandle;
  dashboard?: DashboardServer;
  /** Stops every role (runs are checkpointed and put back), then the queues and the connection. */
  close(graceMs?: number): Promise<void>;
}

/** Loaded only by processes that run jobs: the dashboard and scheduler need none of the sync code. */
async function defaultProcessor(config: AppConfig, logger: Logger, redis: Redis, prefix: string): Promise<SyncProcessor> {
  const { createSyncProcessor } = await import('../../../jobs/sync-search.js');
  return createSyncProcessor({ config, logger, redis, prefix });
}

/** `DASHBOARD_READ_ONLY`: `true` (every queue) or a comma-separated list of queue names. */
function readOnlyQueues(value: string | undefined): boolean | string[] {
  if (!value || value === 'false') return false;
  return value === 'true' ? true : value.split(',').map((q) => q.trim()).filter(Boolean);
}

export async function startRoles(opts: StartRolesOptions): Promise<RunningRoles> {
  const { config, logger, roles } = opts;
  const connection = createRedis(opts.redisUrl);
  const prefix = opts.prefix ?? queuePrefix();
  const ctx = { connection, prefix };
  const queues = openQueues(ctx);
  let alerting: Alerting | undefined;
  const running: RunningRoles = {
    connection,
    prefix,
    queues,
    async close(graceMs = 25_000) {
      await alerting?.close();
      await running.scheduler?.close();
      await running.worker?.shutdown(graceMs);
      await running.dashboard?.close();
      await queues.close();
      await connection.quit().catch(() => connection.disconnect());
    },
  };
  try {
    if (roles.worker) {
      running.worker = startSyncWorker({
        ctx,
        logger,
        concurrency: opts.concurrency ?? config.worker.concurrency,
        processor: opts.processor ?? (await defaultProcessor(config, logger, connection, prefix)),
      });
    }
    if (roles.scheduler) {
      let first: AppConfig | undefined = config;
      running.scheduler = await startScheduler({
        ctx,
        queues,
        logger,
        loadSearches: async () => {
          const current = first ?? (await loadConfig({ path: opts.configPath }));
          first = undefined;
          return current.searches;
        },
      });
    }
    if (roles.dashboard) {
      running.dashboard = await startDashboardServer({
        queues: [queues.sync, queues.tick],
        redis: connection,
        host: opts.dashboard?.host ?? config.server.host,
        port: opts.dashboard?.port ?? config.server.port,
        auth: config.server.auth,
        readOnly: readOnlyQueues(process.env.DASHBOARD_READ_ONLY),
        metricsAuth: process.env.METRICS_AUTH === 'true',
        prefix, searches: () => config.searches, creditCaps: () => config.source.credits, apiHealthUrl: `${config.source.baseUrl}${config.source.paths.health}`,
        logger,
      });
    }
    if ((roles.scheduler || roles.dashboard) && config.alerts) {
      alerting = startAlerting({ redis: connection, prefix, alerts: () => config.alerts, searches: () => config.searches, maxCreditsPerDay: () => config.source.credits.maxPerDay, logger, listenToQueue: true });
    }
  } catch (err) {
    await running.close(1_000);
    throw err;
  }
  return running;
}

const USAGE = 'usage: prospect-sync <start|worker|scheduler|dashboard> [--config <file>] [--concurrency <n>] [--port <n>] [--host <addr>]\n';

/** Parses the process commands' options, loads the config, starts the roles and runs until SIGTERM/SIGINT. */
export async function runRoles(roles: RoleSet, argv: string[]): Promise<number> {
  let values: { config?: string; concurrency?: string; port?: string; host?: string };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { config: { type: 'string' }, concurrency: { type: 'string' }, port: { type: 'string' }, host: { type: 'string' } },
      strict: true,
    }));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${USAGE}`);
    return EXIT.usage;
  }
  const loaded = await loadCommandConfig(values.config);
  if (typeof loaded === 'number') return loaded;
  const { config, path: configPath } = loaded;
  const number = (v: string | undefined): number | undefined => (v === undefined ? undefined : Number(v));
  const logger = createLogger();
  const running = await startRoles({
    roles,
    config,
    configPath,
    logger,
    concurrency: number(values.concurrency),
    dashboard: { port: number(values.port), host: values.host },
  });
  if (running.scheduler) {
    const scheduler = running.scheduler;
    process.on('SIGHUP', () => {
      logger.info('SIGHUP: reloading the config');
      void scheduler.reload();
    });
  }
  if (running.dashboard) process.stdout.write(`dashboard: ${running.dashboard.url}\n`);
  logger.info({ roles, prefix: running.prefix }, 'started');
  exitOnSignals(() => running.close(), { logger });
  return new Promise<number>(() => undefined); // exitOnSignals ends the process
}

export function runCommand(argv: string[]): Promise<number> {
  return runRoles({ scheduler: true, worker: true, dashboard: true }, argv);
}
