/**
 * The erase steps every store uses (src/shared/key-erase.ts) on real Redis: members and fields equal to a key go from
 * sets, sorted sets and hashes; texts naming an id as a whole token are rewritten or dropped (`p_1` is not `p_12`);
 * nothing changes without `apply`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { eraseMembers, eraseMentions } from '../../src/shared/key-erase.js';
import { testRedis } from '../helpers/redis.js';

let done: (() => Promise<void>) | undefined;
afterEach(async () => {
  await done?.();
  done = undefined;
});

describe('key erase', () => {
  it(
    'eraseMembers counts, then removes, the key from sets, sorted sets and hashes under the pattern ' + 'only',
    async () => {
      const { redis, prefix, cleanup } = await testRedis('key-erase');
      done = cleanup;
      await redis.sadd(`${prefix}:a:set`, 'p_1', 'p_12');
      await redis.zadd(`${prefix}:a:zset`, 1, 'p_1', 2, 'p_2');
      await redis.hset(`${prefix}:a:hash`, 'p_1', 'x', 'p_3', 'y');
      await redis.sadd(`${prefix}:b:set`, 'p_1');
      const dry = await eraseMembers(redis, `${prefix}:a:*`, ['p_1'], false);
      expect(dry.map((h) => h.count)).toEqual([1, 1, 1]);
      expect(await redis.sismember(`${prefix}:a:set`, 'p_1')).toBe(1);
      await eraseMembers(redis, `${prefix}:a:*`, ['p_1'], true);
      expect(await redis.smembers(`${prefix}:a:set`)).toEqual(['p_12']);
      expect(await redis.zrange(`${prefix}:a:zset`, '0', '-1')).toEqual(['p_2']);
      expect(await redis.hkeys(`${prefix}:a:hash`)).toEqual(['p_3']);
      expect(await redis.sismember(`${prefix}:b:set`, 'p_1')).toBe(1);
    },
  );

  it('eraseMentions rewrites whole-token mentions in strings, lists and hashes, or drops list elements', async () => {
    const { redis, prefix, cleanup } = await testRedis('key-erase');
    done = cleanup;
    await redis.set(`${prefix}:s`, '{"reason":"p_1 refused","other":"p_12"}', 'EX', 600);
    await redis.rpush(`${prefix}:l`, 'about p_1', 'about p_12', 'mail Jane@X.io');
    await redis.hset(`${prefix}:h`, 'data', '["p_1"]', 'keep', 'p_10');
    await redis.rpush(`${prefix}:drop`, 'a p_1', 'b p_2', 'c p_1');
    expect(await eraseMentions(redis, `${prefix}:*`, ['p_1', 'jane@x.io'], 'redact', false)).toHaveLength(4);
    expect(await redis.get(`${prefix}:s`)).toContain('p_1 refused');
    await eraseMentions(redis, `${prefix}:[slh]`, ['p_1', 'jane@x.io'], 'redact', true);
    expect(await redis.get(`${prefix}:s`)).toBe('{"reason":"[erased] refused","other":"p_12"}');
    expect(await redis.ttl(`${prefix}:s`)).toBeGreaterThan(0);
    expect(await redis.lrange(`${prefix}:l`, 0, -1)).toEqual(['about [erased]', 'about p_12', 'mail [erased]']);
    expect(await redis.hgetall(`${prefix}:h`)).toEqual({ data: '["[erased]"]', keep: 'p_10' });
    await eraseMentions(redis, `${prefix}:drop`, ['p_1'], 'drop', true);
    expect(await redis.lrange(`${prefix}:drop`, 0, -1)).toEqual(['b p_2']);
  });
});
