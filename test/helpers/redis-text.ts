/** Every key under `prefix` and every value it holds (strings, hashes, lists, sets, sorted sets, streams), as text. */
import type { Redis } from 'ioredis';

export async function redisText(redis: Redis, prefix: string): Promise<string> {
  return [...(await redisEntries(redis, prefix))].flat().join('\n');
}

/** Each key under `prefix` with its value as text (set members sorted). */
export async function redisEntries(redis: Redis, prefix: string): Promise<Map<string, string>> {
  const entries = new Map<string, string>();
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
    cursor = next;
    for (const key of keys) {
      const parts: string[] = [];
      const type = await redis.type(key);
      if (type === 'string') parts.push((await redis.getBuffer(key))?.toString('latin1') ?? '');
      else if (type === 'hash') {
        const flat = await redis.hgetallBuffer(key);
        parts.push(...Object.entries(flat).flatMap(([f, v]) => [f, v.toString('latin1')]));
      } else if (type === 'list') parts.push(...(await redis.lrange(key, 0, -1)));
      else if (type === 'set') parts.push(...(await redis.smembers(key)).sort());
      else if (type === 'zset') parts.push(...(await redis.zrange(key, '0', '-1')));
      else if (type === 'stream') parts.push(JSON.stringify(await redis.xrange(key, '-', '+')));
      else parts.push(`(unread type ${type})`);
      entries.set(key, parts.join('\n'));
    }
  } while (cursor !== '0');
  return entries;
}
