import { Redis, type RedisOptions } from 'ioredis';

export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

/**
 * One ioredis connection. BullMQ workers need `maxRetriesPerRequest: null` (blocking commands), so that is the
 * default here; callers that want fast failure pass their own value.
 */
export function createRedis(url: string = process.env.REDIS_URL ?? DEFAULT_REDIS_URL, options: RedisOptions = {}): Redis {
  return new Redis(url, { maxRetriesPerRequest: null, enableReadyCheck: true, lazyConnect: false, ...options });
}
