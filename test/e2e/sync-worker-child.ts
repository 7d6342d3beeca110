/**
 * A real worker process for the crash / shutdown tests: the sync processor of jobs/sync-search.ts behind F1's
 * worker bootstrap, with short BullMQ lock and stall settings so a killed worker's run is recovered quickly
 * (`WORKER_LOCKS=production`: the production lock settings instead). argv: <config.yaml> <prefix>. Prints "ready"
 * once it takes jobs; SIGTERM shuts it down gracefully. `BUSY_ON_SIGUSR2=<ms>`: SIGUSR2 blocks its event loop with
 * CPU work for that long (printing "busy" before and "idle" after), as a heavy synchronous stretch would.
 */
import { loadConfig } from '../../src/config/index.js';
import { exitOnSignals, startSyncWorker } from '../../src/queue/index.js';
import { createLogger } from '../../src/shared/logger.js';
import { createRedis } from '../../src/shared/redis.js';
import { createSyncProcessor } from '../../jobs/sync-search.js';

const [configPath, prefix] = process.argv.slice(2);
if (!configPath || !prefix) throw new Error('usage: sync-worker-child <config> <prefix>');
const config = await loadConfig({ path: configPath });
const logger = createLogger({ level: process.env.LOG_LEVEL ?? 'warn' });
const connection = createRedis(process.env.REDIS_URL);
const production = process.env.WORKER_LOCKS === 'production';
const worker = startSyncWorker({
  ctx: { connection, prefix },
  processor: createSyncProcessor({
    config,
    redis: connection,
    prefix,
    logger,
    ...(production ? {} : { lockTtlMs: 3_000 }),
  }),
  logger,
  ...(production ? {} : { lockDuration: 2_000, stalledInterval: 1_000 }),
});
const busyMs = Number(process.env.BUSY_ON_SIGUSR2 ?? 0);
if (busyMs > 0) {
  process.on('SIGUSR2', () => {
    process.stdout.write('busy\n');
    const until = Date.now() + busyMs;
    while (Date.now() < until) Math.sqrt(Math.random());
    process.stdout.write('idle\n');
  });
}
exitOnSignals(
  async () => {
    await worker.shutdown(10_000);
    connection.disconnect();
  },
  { logger },
);
await worker.worker.waitUntilReady();
process.stdout.write('ready\n');
