import { Redis, type RedisOptions } from 'ioredis';

export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

/** Longest wait between two reconnection attempts: Redis is found again within this long after it returns. */
export const REDIS_RETRY_MAX_MS = 5_000;

/** Capped exponential backoff (200 ms doubling, at most REDIS_RETRY_MAX_MS): never gives up, never hammers. */
export function redisRetryDelay(attempt: number): number {
  return Math.min(REDIS_RETRY_MAX_MS, 200 * 2 ** Math.min(Math.max(0, attempt - 1), 10));
}

/**
 * One ioredis connection. BullMQ workers need `maxRetriesPerRequest: null` (blocking commands), so that is the
 * default here; callers that want fast failure pass their own value (and `retryStrategy: () => null`).
 */
export function createRedis(url: string = process.env.REDIS_URL ?? DEFAULT_REDIS_URL, options: RedisOptions = {}): Redis {
  return new Redis(url, { maxRetriesPerRequest: null, enableReadyCheck: true, lazyConnect: false, retryStrategy: redisRetryDelay, ...options });
}

/** QUIT when connected (pending replies arrive first); when Redis is unreachable QUIT would wait for it: disconnect. */
export async function closeRedis(redis: Redis): Promise<void> {
  if (redis.status === 'end') return;
  if (redis.status !== 'ready') {
    redis.disconnect();
    return;
  }
  await redis.quit().catch(() => redis.disconnect());
}

/** `url` as it may be logged: the password (and a user name) removed. Unparseable input gives a placeholder. */
export function redisUrlForLogs(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.toString();
  } catch {
    return '(unparseable REDIS_URL)';
  }
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

/** Whether a Redis at `url` answers a PING within about `timeoutMs` (no retries; never throws). */
export async function redisAnswers(url: string, timeoutMs = 1500): Promise<boolean> {
  const probe = createRedis(url, { maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: timeoutMs, lazyConnect: true });
  probe.on('error', () => undefined);
  try {
    await probe.connect();
    return (await probe.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}
