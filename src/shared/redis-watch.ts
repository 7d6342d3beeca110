/**
 * Logs a long-running process' Redis connection as a state: one line when it becomes unreachable, at most one
 * progress line per `progressEveryMs` while it stays down, one line when it is back. ioredis keeps reconnecting
 * (createRedis' capped backoff); BullMQ and the queued commands carry on once it is ready again.
 */
import type { Redis } from 'ioredis';
import type { Logger } from './logger.js';
import { CLUSTER_SCHEME, REDIS_RETRY_MAX_MS, redisUrlForLogs } from './redis.js';
import { trackRedisState } from './redis-state.js';

export interface RedisWatchOptions {
  logger: Logger;
  /** What to call the server in messages (its password is removed); default: host:port/db of the connection. */
  url?: string;
  /** Least time between two "still unreachable" lines; default 30 s. */
  progressEveryMs?: number;
  now?: () => number;
}

export const REDIS_PROGRESS_EVERY_MS = 30_000;

function describe(redis: Redis): string {
  // a Cluster from createRedis (typed Redis): its seed nodes; its `options` name no host
  const cluster = redis as unknown as { isCluster?: boolean; startupNodes?: { host?: string; port?: number }[] };
  if (cluster.isCluster)
    return (
      `${CLUSTER_SCHEME}//` +
      `${(cluster.startupNodes ?? []).map((n) => `${n.host ?? '127.0.0.1'}:${n.port ?? 6379}`).join(',')}`
    );
  const o = redis.options;
  if (o.path) return `unix:${o.path}`;
  return `${o.tls ? 'rediss' : 'redis'}://${o.host ?? '127.0.0.1'}:${o.port ?? 6379}/${o.db ?? 0}`;
}

/** Attaches the watcher (also the connection's 'error' listener, so ioredis prints no raw stack traces). */
export function watchRedis(redis: Redis, opts: RedisWatchOptions): Redis {
  const now = opts.now ?? Date.now;
  const every = opts.progressEveryMs ?? REDIS_PROGRESS_EVERY_MS;
  const url = opts.url === undefined ? describe(redis) : redisUrlForLogs(opts.url);
  const state = trackRedisState(redis, now);
  let down: { since: number; lastLog: number; attempts: number } | undefined;
  let closing = false;

  const wentDown = (err?: Error): void => {
    if (closing) return;
    if (!down) {
      down = { since: now(), lastLog: now(), attempts: 0 };
      opts.logger.error(
        { redis: url, error: err?.message ?? state.lastError, retryMaxMs: REDIS_RETRY_MAX_MS },
        `Redis at ${url} is unreachable (check REDIS_URL); retrying with backoff, runs resume from their ` +
          `checkpoints when it is back`,
      );
      return;
    }
    if (now() - down.lastLog >= every) {
      down.lastLog = now();
      opts.logger.warn(
        {
          redis: url,
          downForS: Math.round((now() - down.since) / 1000),
          attempts: down.attempts,
          error: err?.message ?? state.lastError,
        },
        `Redis at ${url} still unreachable; retrying`,
      );
    }
  };

  redis.on('error', (err: Error) => wentDown(err));
  redis.on('reconnecting', () => {
    if (down) down.attempts += 1;
  });
  redis.on('ready', () => {
    if (!down) return;
    opts.logger.info(
      { redis: url, downForS: Math.round((now() - down.since) / 1000), attempts: down.attempts },
      `Redis at ${url} reachable again`,
    );
    down = undefined;
  });
  // Our own quit()/disconnect() ends the connection: what follows is not an outage.
  redis.on('end', () => {
    closing = true;
  });
  return redis;
}
