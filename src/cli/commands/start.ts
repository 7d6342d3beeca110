/**
 * `start`: scheduler + workers + dashboard in one process. `worker`, `scheduler` and `dashboard` run one role each
 * through the same `startRoles`, which `demo` reuses in-process. SIGHUP reloads the config of the whole process
 * (src/cli/live-config.ts): an invalid file is refused, logged with its file:line problems, and the old one kept.
 */
import type { Redis } from 'ioredis';
import { ConfigError, formatIssue, loadConfig, type AppConfig } from '../../config/index.js';
import {
  enqueueRun,
  exitOnSignals,
  openQueues,
  queuePrefix,
  runsInFlight,
  startScheduler,
  startSyncWorker,
  type AppQueues,
  type SchedulerHandle,
  type SyncProcessor,
  type SyncWorkerHandle,
} from '../../queue/index.js';
// Types only: a worker-only process loads neither the dashboard (express, bull-board, prom-client) nor alerting.
import type { DashboardServer } from '../../server/index.js';
import type { Alerting } from '../../alerts/index.js';
import { createLogger, type Logger } from '../../shared/logger.js';
import { assertNoEviction } from '../../shared/redis-eviction.js';
import { closeRedis, createRedis } from '../../shared/redis.js';
import { watchRedis } from '../../shared/redis-watch.js';
import { listGovernorSnapshots } from '../../shared/governor-snapshots.js';
import { loadCommandConfig, type ConfigOption } from '../command-context.js';
import { EXIT } from '../exit-codes.js';
import { createLiveConfig, type ReloadResult } from '../live-config.js';

export interface RoleSet {
  scheduler: boolean;
  worker: boolean;
  dashboard: boolean;
}

export interface StartRolesOptions {
  roles: RoleSet;
  config: AppConfig;
  /** Re-read by `reload()` (SIGHUP). */
  configPath: string;
  logger: Logger;
  redisUrl?: string;
  /** BullMQ prefix; default $QUEUE_PREFIX or 'prospect-sync'. */
  prefix?: string;
  /** Default: the sync job of jobs/sync-search.ts, reading the config in force at each job's start. */
  processor?: SyncProcessor;
  concurrency?: number;
  dashboard?: { port?: number; host?: string };
  /** Called once the queues are open, before the scheduler's first ticks (e.g. to queue a run ahead of them). */
  beforeScheduler?: (queues: AppQueues) => Promise<void>;
}

export interface RunningRoles {
  connection: Redis;
  prefix: string;
  queues: AppQueues;
  scheduler?: SchedulerHandle;
  worker?: SyncWorkerHandle;
  dashboard?: DashboardServer;
  /** The config in force (swapped by `reload`). */
  config(): AppConfig;
  /**
   * Re-reads the config file and, when it is valid, swaps it for every role at once: jobs started from now on,
   * the scheduler's job schedulers and the dashboard's searches. An invalid file is logged and refused.
   */
  reload(): Promise<ReloadResult>;
  /** Stops every role (runs are checkpointed and put back), then the queues and the connection. */
  close(graceMs?: number): Promise<void>;
}

/** Loaded only by processes that run jobs: the dashboard and scheduler need none of the sync code. */
async function defaultProcessor(
  getConfig: () => AppConfig,
  logger: Logger,
  redis: Redis,
  queues: AppQueues,
  prefix: string,
): Promise<SyncProcessor> {
  const { createSyncProcessor } = await import('../../../jobs/sync-search/index.js');
  return createSyncProcessor({
    config: getConfig(),
    getConfig,
    logger,
    redis,
    prefix,
    runQueue: {
      runsInFlight: (searches, dueWithinMs) => runsInFlight(queues.sync, redis, searches, dueWithinMs),
      queueRun: async (search) => {
        await enqueueRun(queues.sync, search, 'schedule');
      },
    },
  });
}

/** A refused reload, logged with the file:line of each problem (never a value: secrets stay out of logs). */
function logRefusedReload(logger: Logger, error: unknown): void {
  const problems =
    error instanceof ConfigError
      ? error.issues.map(formatIssue)
      : [error instanceof Error ? error.message : String(error)];
  logger.error({ problems }, `config reload failed; keeping the previous config: ${problems[0] ?? ''}`);
}

/** `DASHBOARD_READ_ONLY`: `true` (every queue) or a comma-separated list of queue names. */
function readOnlyQueues(value: string | undefined): boolean | string[] {
  if (!value || value === 'false') return false;
  return value === 'true'
    ? true
    : value
        .split(',')
        .map((q) => q.trim())
        .filter(Boolean);
}

/** `METRICS_AUTH=true|false` wins over `server.metricsAuth`; neither: the dashboard's default (auth when set). */
function metricsAuthOf(env: string | undefined, configured: boolean | undefined): { metricsAuth?: boolean } {
  const value = env === 'true' ? true : env === 'false' ? false : configured;
  return value === undefined ? {} : { metricsAuth: value };
}

const REDIS_READY_GRACE_MS = 2_000;

/** Whether Redis answers now or within `ms` (false: it is away; the outage logging says so). */
async function readySoon(redis: Redis, ms: number): Promise<boolean> {
  if (redis.status === 'ready') return true;
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      redis.off('ready', onReady);
      resolve(false);
    }, ms);
    const onReady = (): void => {
      clearTimeout(timer);
      resolve(true);
    };
    redis.once('ready', onReady);
  });
}

export async function startRoles(opts: StartRolesOptions): Promise<RunningRoles> {
  const { config, logger, roles } = opts;
  const live = createLiveConfig(config, opts.configPath, (path) => loadConfig({ path, dashboard: roles.dashboard }));
  const connection = watchRedis(createRedis(opts.redisUrl), { logger });
  // Before any role: a Redis that evicts would drop locks and jobs mid-run. A Redis away at start is checked when it
  // comes (the roles start meanwhile, as through any outage), and the process stops then if it evicts.
  if (await readySoon(connection, REDIS_READY_GRACE_MS)) {
    await assertNoEviction(connection).catch(async (err: unknown) => {
      await closeRedis(connection);
      throw err;
    });
  } else {
    connection.once('ready', () => {
      assertNoEviction(connection).catch((err: unknown) => {
        logger.error({ code: (err as { code?: string }).code }, (err as Error).message);
        process.exitCode = EXIT.config;
        process.kill(process.pid, 'SIGTERM');
      });
    });
  }
  const prefix = opts.prefix ?? queuePrefix();
  const ctx = { connection, prefix };
  const queues = openQueues(ctx, logger);
  let alerting: Alerting | undefined;
  const running: RunningRoles = {
    connection,
    prefix,
    queues,
    config: live.current,
    async reload() {
      const result = await live.reload();
      if (!result.ok) {
        logRefusedReload(logger, result.error);
        return result;
      }
      const { config: next, previous } = result;
      const worker = running.worker?.worker;
      if (worker && opts.concurrency === undefined) worker.concurrency = next.worker.concurrency;
      if (running.dashboard && JSON.stringify(next.server) !== JSON.stringify(previous.server)) {
        logger.warn('server settings changed: the dashboard keeps its address and auth until the process restarts');
      }
      await running.scheduler?.reload();
      logger.info({ searches: next.searches.map((s) => s.name) }, 'config reloaded');
      return result;
    },
    async close(graceMs = 25_000) {
      await alerting?.close();
      await running.scheduler?.close();
      await running.worker?.shutdown(graceMs);
      await running.dashboard?.close();
      await queues.close();
      await closeRedis(connection);
    },
  };
  try {
    if (roles.worker) {
      running.worker = startSyncWorker({
        ctx,
        logger,
        concurrency: opts.concurrency ?? config.worker.concurrency,
        processor: opts.processor ?? (await defaultProcessor(live.current, logger, connection, queues, prefix)),
      });
    }
    await opts.beforeScheduler?.(queues);
    if (roles.scheduler) {
      // The file is read by `reload`, once for the whole process; the scheduler takes the searches in force.
      running.scheduler = await startScheduler({
        ctx,
        queues,
        logger,
        loadSearches: async () => live.current().searches,
      });
    }
    if (roles.dashboard) {
      const { startDashboardServer } = await import('../../server/index.js');
      running.dashboard = await startDashboardServer({
        queues: [queues.sync, queues.tick],
        redis: connection,
        host: opts.dashboard?.host ?? config.server.host,
        port: opts.dashboard?.port ?? config.server.port,
        auth: config.server.auth,
        adminActions: config.server.adminActions,
        ...(config.server.runActions === undefined ? {} : { runActions: config.server.runActions }),
        readOnly: readOnlyQueues(process.env.DASHBOARD_READ_ONLY),
        ...metricsAuthOf(process.env.METRICS_AUTH, config.server.metricsAuth),
        prefix,
        governorSnapshots: () => listGovernorSnapshots(connection, prefix),
        searches: () => live.current().searches,
        creditCaps: () => live.current().source.credits,
        tokenReserve: () => live.current().source.tokens.reserve,
        apiHealthUrl: `${config.source.baseUrl}${config.source.paths.health}`,
        logger,
      });
    }
    if ((roles.scheduler || roles.dashboard) && config.alerts) {
      const { startAlerting } = await import('../../alerts/index.js');
      alerting = startAlerting({
        redis: connection,
        prefix,
        alerts: () => live.current().alerts,
        searches: () => live.current().searches,
        maxCreditsPerDay: () => live.current().source.credits.maxPerDay,
        tokenReserve: () => live.current().source.tokens.reserve,
        logger,
        listenToQueue: true,
      });
    }
  } catch (err) {
    await running.close(1_000);
    throw err;
  }
  return running;
}

/** Options of the process commands, already validated by the program (src/cli/program.ts). */
export interface RolesOptions extends ConfigOption {
  concurrency?: number;
  port?: number;
  host?: string;
}

/** Loads the config, starts the roles and runs until SIGTERM/SIGINT; SIGHUP reloads the config. */
export async function runRoles(roles: RoleSet, opts: RolesOptions): Promise<number> {
  const { config, path: configPath } = await loadCommandConfig(opts.config, { dashboard: roles.dashboard });
  const logger = createLogger();
  // Listen before the roles start: a SIGHUP that arrives during startup would otherwise end the process
  // (Node's default for the signal); it is applied as soon as the roles run.
  const hup: { running?: RunningRoles; early: boolean } = { early: false };
  process.on('SIGHUP', () => {
    logger.info('SIGHUP: reloading the config');
    if (hup.running) void hup.running.reload();
    else hup.early = true;
  });
  const running = await startRoles({
    roles,
    config,
    configPath,
    logger,
    concurrency: opts.concurrency,
    dashboard: { port: opts.port, host: opts.host },
  });
  hup.running = running;
  if (hup.early) void running.reload();
  if (running.dashboard) process.stdout.write(`dashboard: ${running.dashboard.url}\n`);
  logger.info({ roles, prefix: running.prefix }, 'started');
  exitOnSignals(() => running.close(), { logger });
  return new Promise<number>(() => undefined); // exitOnSignals ends the process
}
