/**
 * A queued run's world on a redis-server of the test's own: the company search in a config file, queues on that
 * Redis, and a pool of worker processes for it (not spawned yet). Everything is closed by the test's closers.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { openQueues, type AppQueues } from '../../src/queue/index.js';
import type { RunCheckpoint } from '../../src/runs/checkpoint-store.js';
import { createRedis } from '../../src/shared/redis.js';
import { COMPANY_SEARCH, hubspotConfig, type Fixture } from '../jobs/sync-fixture.js';
import { privateRedis, type PrivateRedis } from '../queue/private-redis.js';
import { workerPool, type WorkerPool } from './worker-process.js';

export interface OwnRedisWorker {
  redis: PrivateRedis;
  conn: Redis;
  queues: AppQueues;
  pool: WorkerPool;
  prefix: string;
  /** Records the run of `all-companies` fetched so far, as its checkpoint says. */
  fetched(): Promise<number>;
}

/** `redisArgs`: more redis-server options; `env`: more of the workers' environment. */
export async function ownRedisWorker(
  fx: Fixture,
  closers: (() => Promise<unknown>)[],
  label: string,
  options: { redisArgs?: string[]; env?: Record<string, string> } = {},
): Promise<OwnRedisWorker> {
  const redis = await privateRedis(`${label}-pw`, options.redisArgs);
  closers.push(() => redis.destroy());
  await redis.start();
  const dir = await mkdtemp(join(tmpdir(), `ps-${label}-`));
  closers.push(() => rm(dir, { recursive: true, force: true }));
  const configFile = join(dir, 'config.yaml');
  await writeFile(configFile, hubspotConfig(COMPANY_SEARCH, '  pageSize: 20\n  parallelism: 2'));
  const prefix = `ps-${label}`;
  const conn = createRedis(redis.url);
  conn.on('error', () => undefined);
  closers.push(async () => conn.disconnect());
  const queues = openQueues({ connection: conn, prefix });
  closers.push(() => queues.close().catch(() => undefined));
  const pool = workerPool(configFile, prefix, { ...fx.env, REDIS_URL: redis.url, ...options.env });
  closers.push(() => pool.killAll());
  const fetched = async (): Promise<number> => {
    const raw = await conn.get(`${prefix}:run:all-companies:checkpoint`);
    return raw ? (JSON.parse(raw) as RunCheckpoint).counts.fetched : 0;
  };
  return { redis, conn, queues, pool, prefix, fetched };
}
