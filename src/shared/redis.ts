import { Redis, type RedisOptions } from 'ioredis';

export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

/**
 * One ioredis connection. BullMQ workers need `maxRetriesPerRequest: null` (blocking commands), so that is the
 * default here; callers that want fast failure pass their own value.
 */
export function createRedis(url: string = process.env.REDIS_URL ?? DEFAULT_REDIS_URL, options: RedisOptions = {}): Redis {
  return new Redis(url, { maxRetriesPerRequest: null, enableReadyCheck: true, lazyConnect: false, ...options });
}

/** Deletes every key under `prefix:` (SCAN, never KEYS *): for throwaway prefixes such as a demo's or a bench's. */
export async function deleteKeysUnder(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
    cursor = next;
    if (keys.length > 0) await redis.del(...keys);
  } while (cursor !== '0');
}

/** Owner-checked lease scripts (KEYS[1] lock key, ARGV[1] owner token): only the holder may renew or release. */
export const RENEW_IF_OWNER = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0`;
export const RELEASE_IF_OWNER = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;
