/**
 * `demo [--once] [--config f] [--search name]`: the whole product on this machine in one command. Starts the three
 * emulators, points the example config at them, finds Redis ($REDIS_URL; else a private `redis-server` on a free
 * port; else says what to install), starts scheduler + worker + dashboard, triggers the first companies search and
 * shows records arriving in the emulated HubSpot. With --once, without a TTY or under CI it exits after that run
 * (0 when it completed); otherwise it keeps running for the dashboard until Ctrl-C.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { DEMO_DATASET, startAllEmulators, type RunningEmulators } from '../../emulators/start-all.js';
import { enqueueRun } from '../../queue/index.js';
import { formatSummary } from '../../runs/format-summary.js';
import { listRuns } from '../../runs/run-history.js';
import type { RunSummary } from '../../runs/run-summary.js';
import { createLogger } from '../../shared/logger.js';
import { INSTALL_REDIS_HINT, startPrivateRedis, type PrivateRedisServer } from '../../shared/private-redis-server.js';
import { createRedis, DEFAULT_REDIS_URL, deleteKeysUnder, redisAnswers } from '../../shared/redis.js';
import { isLoopbackName } from '../../server/loopback.js';
import { loadCommandConfig, type ConfigOption } from '../command-context.js';
import { EXIT } from '../exit-codes.js';
import { startRoles, type RunningRoles } from './start.js';

const INSTALL_REDIS =
  'prospect-sync demo needs Redis. None answers at $REDIS_URL (or redis://127.0.0.1:6379) and redis-server is ' +
  'not installed.\n' +
  'Install it, then run the demo again:\n' +
  INSTALL_REDIS_HINT;

async function dropPrefix(url: string, prefix: string): Promise<void> {
  const redis = createRedis(url, { maxRetriesPerRequest: 1 });
  try {
    await deleteKeysUnder(redis, prefix);
  } finally {
    redis.disconnect();
  }
}

export interface DemoOptions extends ConfigOption {
  once?: boolean;
  search?: string;
}

export async function runCommand(values: DemoOptions): Promise<number> {
  const once = values.once === true || !process.stdout.isTTY || Boolean(process.env.CI);
  const say = (line: string): void => void process.stdout.write(`${line}\n`);

  // 1. Redis: the configured one, else a private one, else instructions.
  let redisUrl = process.env.REDIS_URL ?? DEFAULT_REDIS_URL;
  let privateRedis: PrivateRedisServer | null = null;
  if (!(await redisAnswers(redisUrl))) {
    privateRedis = await startPrivateRedis();
    if (!privateRedis) {
      process.stderr.write(INSTALL_REDIS);
      return EXIT.failed;
    }
    redisUrl = privateRedis.url;
    say(`no Redis at ${process.env.REDIS_URL ?? DEFAULT_REDIS_URL}: started a private redis-server at ${redisUrl}`);
  }

  // 2. Emulators, and the example config pointed at them (its ${VAR:-default}s read these variables).
  // The demo data size, so the example search brings a few hundred records rather than a handful.
  const emulators: RunningEmulators = await startAllEmulators({
    ports: { salesIntel: 0, hubspot: 0, salesforce: 0 },
    salesIntel: DEMO_DATASET,
  });
  Object.assign(process.env, emulators.env, { REDIS_URL: redisUrl });
  // A fresh key prefix per demo: its change hashes must not claim records the fresh HubSpot emulator never saw.
  const prefix = `prospect-sync-demo-${randomUUID().slice(0, 8)}`;
  let roles: RunningRoles | undefined;
  const stop = async (): Promise<void> => {
    await roles?.close(5_000).catch(() => undefined);
    await emulators.close().catch(() => undefined);
    await dropPrefix(redisUrl, prefix).catch(() => undefined);
    await privateRedis?.stop();
  };
  try {
    const { config, path: configPath } = await loadCommandConfig(values.config ?? 'config/demo.yaml', {
      dashboard: true,
    });
    const search = config.searches.find((s) => (values.search ? s.name === values.search : s.entity === 'companies'));
    if (!search) {
      process.stderr.write(
        `no ${values.search ? `search named '${values.search}'` : 'companies search'} in ${configPath}\n`,
      );
      return EXIT.config;
    }

    // The container image sets PROSPECT_SYNC_HOST=0.0.0.0 so the host can open the dashboard; off loopback it needs
    // a password, made up at each start unless the config has one.
    const host = process.env.PROSPECT_SYNC_HOST || '127.0.0.1';
    const port = Number(process.env.PROSPECT_SYNC_PORT || 0);
    if (!Number.isInteger(port) || port < 0 || port > 65_535) {
      process.stderr.write('PROSPECT_SYNC_PORT: expected a port number (0-65535)\n');
      return EXIT.config;
    }
    const madeUp =
      isLoopbackName(host) || config.server.auth ? undefined : { username: 'admin', password: randomUUID() };

    // 3. Scheduler + worker + dashboard, and a run of the search now, queued before the scheduler's first ticks so
    // the searches that run `after` it wait for it.
    let jobId = '';
    roles = await startRoles({
      roles: { scheduler: true, worker: true, dashboard: true },
      config: madeUp ? { ...config, server: { ...config.server, auth: madeUp } } : config,
      configPath,
      logger: createLogger({ level: process.env.LOG_LEVEL ?? 'warn' }),
      redisUrl,
      prefix,
      dashboard: { port, host },
      beforeScheduler: async (queues) => {
        ({ jobId } = await enqueueRun(queues.sync, search.name, 'manual'));
      },
    });
    say(
      `emulators: Sales-Intelligence ${emulators.urls.salesIntel}  HubSpot ${emulators.urls.hubspot}  ` +
        `Salesforce ${emulators.urls.salesforce}`,
    );
    if (roles.dashboard)
      say(
        `dashboard: ${roles.dashboard.url}${madeUp ? ` (user ${madeUp.username}, password ${madeUp.password})` : ''}`,
      );
    say(`running '${search.name}' (${search.entity} -> ${search.destination}:${search.object}), run ${jobId}`);

    // 4. Watch records arrive in the emulated HubSpot until the run ends.
    const summary = await watch(
      roles,
      search.name,
      jobId,
      (line) => say(line),
      () => emulators.hubspot.state.count(search.object),
    );
    say(formatSummary(summary));
    say(`${emulators.hubspot.state.count(search.object)} ${search.object} landed in the emulated HubSpot`);
    if (once) return summary.status === 'completed' ? EXIT.ok : EXIT.failed;
    say('the scheduler and worker keep running; open the dashboard, or press Ctrl-C to stop');
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    return EXIT.ok;
  } finally {
    await stop();
  }
}

/** Polls the run history (and the CRM count) until the run `jobId` finishes; a delayed run keeps being watched. */
async function watch(
  roles: RunningRoles,
  search: string,
  jobId: string,
  say: (line: string) => void,
  crmCount: () => number,
): Promise<RunSummary> {
  let shown = -1;
  for (;;) {
    const done = (await listRuns(roles.connection, search, { prefix: roles.prefix, limit: 5 })).find(
      (r) => r.runId === jobId && r.status !== 'delayed' && !(r.status === 'failed' && r.stopReason === 'aborted'),
    );
    if (done) return done;
    const job = await roles.queues.sync.getJob(jobId);
    if (job?.failedReason && (await job.getState()) === 'failed')
      throw new Error(`the run failed: ${job.failedReason}`);
    const count = crmCount();
    if (count !== shown) {
      const p = job?.progress as { fetched?: number; target?: number } | undefined;
      say(`  HubSpot records: ${count}${p?.target ? `  (fetched ${p.fetched ?? 0} of ${p.target})` : ''}`);
      shown = count;
    }
    await sleep(200); // the demo run takes about a second: show it filling up
  }
}
