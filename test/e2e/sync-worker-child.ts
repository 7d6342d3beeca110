/**
 * A real worker process for the crash / shutdown tests: the sync processor of jobs/sync-search.ts behind F1's
 * worker bootstrap, with short BullMQ lock and stall settings so a killed worker's run is recovered quickly.
 * argv: <config.yaml> <prefix>. Prints "ready" once it takes jobs; SIGTERM shuts it down gracefully.
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
const worker = startSyncWorker({
  ctx: { connection, prefix },
  processor: createSyncProcessor({ config, redis: connection, prefix, logger, lockTtlMs: 3_000 }),
  logger,
  lockDuration: 2_000,
  stalledInterval: 1_000,
});
exitOnSignals(async () => {
  await worker.shutdown(10_000);
  connection.disconnect();
}, { logger });
await worker.worker.waitUntilReady();
process.stdout.write('ready\n');
