import { randomUUID } from 'node:crypto';
import { createRedis } from '../../src/shared/redis.js';
import type { Redis } from 'ioredis';

/**
 * A real Redis connection plus a key prefix unique to the caller, so test files can run in parallel on one
 * server. `cleanup()` deletes only this prefix's keys and closes the connection. Never FLUSHALL in tests.
 */
export async function testRedis(
  label = 'test',
): Promise<{ redis: Redis; prefix: string; cleanup: () => Promise<void> }> {
  const redis = createRedis(process.env.REDIS_URL, { maxRetriesPerRequest: 3 });
  const prefix = `ps-test:${label}:${randomUUID().slice(0, 8)}`;
  const cleanup = async (): Promise<void> => {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== '0');
    redis.disconnect();
  };
  return { redis, prefix, cleanup };
}
