/**
 * The one-shot commands' Redis connection: connected (or refused) before the command does anything, so a Redis that
 * is down is one clear line naming $REDIS_URL within seconds, instead of commands queued on a dead socket.
 */
import type { Redis } from 'ioredis';
import { AppError } from '../shared/app-error.js';
import { CLUSTER_SCHEME, createRedis, DEFAULT_REDIS_URL, redisUrlForLogs } from '../shared/redis.js';

/** How long a one-shot command waits for Redis to accept the connection. */
const CONNECT_TIMEOUT_MS = 3_000;

/** Redis did not accept the connection. The URL is shown without its password. */
export class RedisUnreachableError extends AppError {
  constructor(url: string, reason: string) {
    super('redis_unreachable', `Redis at ${url} (REDIS_URL) is unreachable: ${reason}`, { details: { url } });
  }
}

/** The Redis URL to show a human: its password and user name removed (a lone user name is often a password). */
export function redisUrlForDisplay(url: string): string {
  if (url.startsWith(CLUSTER_SCHEME)) return redisUrlForLogs(url); // a seed list, not one URL
  try {
    const parsed = new URL(url);
    // `redis://SECRET@host` is a password in the user name's place (Redis < 6 has no user names): drop both.
    parsed.username = '';
    parsed.password = '';
    return parsed.toString().replace(/\/$/, '');
  } catch {
    return '(unparsable REDIS_URL)';
  }
}

/**
 * Connects to `url` (default $REDIS_URL) and fails fast: no reconnect loop, one retry per command. Throws
 * RedisUnreachableError when the connection is refused, times out or is not ready.
 */
export async function connectRedis(url: string = process.env.REDIS_URL ?? DEFAULT_REDIS_URL): Promise<Redis> {
  const redis = createRedis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    retryStrategy: () => null,
    connectTimeout: CONNECT_TIMEOUT_MS,
  });
  // Without a listener ioredis prints each error raw; the first one says why (connect() only says "closed").
  let cause: Error | undefined;
  redis.on('error', (err: Error) => void (cause ??= err));
  try {
    await redis.connect();
  } catch (err) {
    redis.disconnect();
    throw new RedisUnreachableError(redisUrlForDisplay(url), (cause ?? (err as Error)).message);
  }
  return redis;
}
