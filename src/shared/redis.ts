import { Cluster, Redis, type RedisOptions } from 'ioredis';

export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

/** Longest wait between two reconnection attempts: Redis is found again within this long after it returns. */
export const REDIS_RETRY_MAX_MS = 5_000;

/** Capped exponential backoff (200 ms doubling, at most REDIS_RETRY_MAX_MS): never gives up, never hammers. */
export function redisRetryDelay(attempt: number): number {
  return Math.min(REDIS_RETRY_MAX_MS, 200 * 2 ** Math.min(Math.max(0, attempt - 1), 10));
}

/** Scheme of a Redis Cluster URL: `redis+cluster://[user:password@]host:port[,host:port…][/]` lists seed nodes. */
export const CLUSTER_SCHEME = 'redis+cluster:';

export interface ClusterSeeds {
  nodes: { host: string; port: number }[];
  username?: string;
  password?: string;
}

/** The seed nodes of a `redis+cluster://` URL, or null for any other URL (a single Redis). */
export function clusterSeeds(url: string): ClusterSeeds | null {
  if (!url.startsWith(`${CLUSTER_SCHEME}//`)) return null;
  const rest = url.slice(CLUSTER_SCHEME.length + 2).replace(/\/.*$/, '');
  const at = rest.lastIndexOf('@');
  const auth = at >= 0 ? rest.slice(0, at) : '';
  const nodes = (at >= 0 ? rest.slice(at + 1) : rest)
    .split(',')
    .filter(Boolean)
    .map((hp) => {
      const colon = hp.lastIndexOf(':');
      return colon > 0 ? { host: hp.slice(0, colon), port: Number(hp.slice(colon + 1)) } : { host: hp, port: 6379 };
    });
  if (nodes.length === 0 || nodes.some((n) => !n.host || !Number.isInteger(n.port) || n.port <= 0)) {
    throw new Error(`REDIS_URL: a ${CLUSTER_SCHEME}// URL needs host:port seed nodes separated by commas`);
  }
  const colon = auth.indexOf(':');
  const username = colon >= 0 ? decodeURIComponent(auth.slice(0, colon)) : '';
  const password = colon >= 0 ? decodeURIComponent(auth.slice(colon + 1)) : '';
  return { nodes, ...(username ? { username } : {}), ...(password ? { password } : {}) };
}

/**
 * One ioredis connection. BullMQ workers need `maxRetriesPerRequest: null` (blocking commands), so that is the
 * default here; callers that want fast failure pass their own value (and `retryStrategy: () => null`).
 *
 * A `redis+cluster://` URL gives an ioredis Cluster instead. It answers every command, script, MULTI and pipeline
 * we send as long as the keys of one call share a hash slot, which a hash-tagged QUEUE_PREFIX (`{prospect-sync}`)
 * ensures: every key we build starts with the prefix. It is typed as Redis so callers need not care.
 */
export function createRedis(
  url: string = process.env.REDIS_URL ?? DEFAULT_REDIS_URL,
  options: RedisOptions = {},
): Redis {
  const base: RedisOptions = {
    maxRetriesPerRequest: null,
    enableReadyCheck: true,
    lazyConnect: false,
    retryStrategy: redisRetryDelay,
    ...options,
  };
  const seeds = clusterSeeds(url);
  if (!seeds) return quiet(new Redis(url, base));
  const { lazyConnect, retryStrategy, ...redisOptions } = base;
  const auth = {
    ...(seeds.username ? { username: seeds.username } : {}),
    ...(seeds.password ? { password: seeds.password } : {}),
  };
  const cluster = new Cluster(seeds.nodes, {
    redisOptions: { ...redisOptions, ...auth },
    lazyConnect: lazyConnect ?? false,
    enableReadyCheck: true,
    // the same capped backoff as a single Redis; `retryStrategy: () => null` (fail fast) means no cluster retries
    clusterRetryStrategy: (times) => (retryStrategy ? (retryStrategy(times) ?? null) : redisRetryDelay(times)),
  });
  return quiet(cluster as unknown as Redis);
}

/**
 * Without an 'error' listener ioredis prints every failed reconnection raw to stderr ("[ioredis] Unhandled error
 * event"). Every connection we make gets one; an outage is reported by the process's watcher (redis-watch.ts) and
 * a failed command by its rejection.
 */
function quiet(redis: Redis): Redis {
  redis.on('error', () => undefined);
  return redis;
}

/** A second connection to the same Redis (ioredis `duplicate`), with the same quiet error listener. */
export function duplicateRedis(redis: Redis, options: RedisOptions = {}): Redis {
  return quiet(redis.duplicate(options));
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
    const seeds = clusterSeeds(url);
    if (seeds) return `${CLUSTER_SCHEME}//${seeds.nodes.map((n) => `${n.host}:${n.port}`).join(',')}`;
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.toString();
  } catch {
    return '(unparseable REDIS_URL)';
  }
}

/**
 * Every key matching the glob `pattern` (SCAN, never KEYS). On a Cluster SCAN reaches one node only, so every master
 * is scanned.
 */
export async function scanKeys(redis: Redis, pattern: string): Promise<string[]> {
  // createRedis types a Cluster as Redis; instanceof tells them apart at run time
  const client: unknown = redis;
  const nodes = client instanceof Cluster ? client.nodes('master') : [redis];
  const found: string[] = [];
  for (const node of nodes) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
      cursor = next;
      found.push(...keys);
    } while (cursor !== '0');
  }
  return found;
}

/** Deletes every key under `prefix:`: for throwaway prefixes such as a demo's or a bench's. */
export async function deleteKeysUnder(redis: Redis, prefix: string): Promise<void> {
  const keys = await scanKeys(redis, `${prefix}:*`);
  // one DEL per key: on a Cluster keys of other prefixes may sit in other slots
  for (let i = 0; i < keys.length; i += 500) await Promise.all(keys.slice(i, i + 500).map((k) => redis.del(k)));
}

/** Whether a Redis at `url` answers a PING within about `timeoutMs` (no retries; never throws). */
export async function redisAnswers(url: string, timeoutMs = 1500): Promise<boolean> {
  const probe = createRedis(url, {
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: timeoutMs,
    lazyConnect: true,
  });
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
