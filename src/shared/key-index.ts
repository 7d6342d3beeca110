/**
 * An index of keys: a Redis SET naming what exists under a family of keys (budget accounts, rate governors), kept by
 * the code that writes those keys, so readers such as /metrics find them without SCANning the whole keyspace (a SCAN
 * with MATCH still walks every key of the database).
 */
import type { Redis } from 'ioredis';
import { luaScript, runLua } from './lua-script.js';

const builtKey = (indexKey: string): string => `${indexKey}:built`;

const PRUNE_IF_GONE = luaScript('keyIndexPrune', 3, new URL('./key-index-prune.lua', import.meta.url));

/**
 * The index's members. Its first read on a database that predates the index (no `<index>:built` marker) fills it
 * once from `backfill` (a SCAN of the indexed keys); every later read is one SMEMBERS.
 */
export async function readKeyIndex(
  redis: Redis,
  indexKey: string,
  backfill: () => Promise<string[]>,
): Promise<string[]> {
  const [members, built] = await Promise.all([redis.smembers(indexKey), redis.exists(builtKey(indexKey))]);
  if (built) return members.sort();
  // A large database takes seconds to SCAN: reads that come meanwhile (the next scrapes) wait for the same one.
  const running = backfills.get(redis) ?? new Map<string, Promise<string[]>>();
  backfills.set(redis, running);
  let filling = running.get(indexKey);
  if (!filling) {
    filling = fillIndex(redis, indexKey, backfill).finally(() => running.delete(indexKey));
    running.set(indexKey, filling);
  }
  const found = await filling;
  return [...new Set([...members, ...found])].sort();
}

const backfills = new WeakMap<Redis, Map<string, Promise<string[]>>>();

async function fillIndex(redis: Redis, indexKey: string, backfill: () => Promise<string[]>): Promise<string[]> {
  const found = await backfill();
  if (found.length > 0) await redis.sadd(indexKey, ...found);
  await redis.set(builtKey(indexKey), '1');
  return found;
}

/**
 * Drops `member` from the index when none of `keys` (what it indexes) exists any more: they expired or were deleted.
 * Returns whether it was dropped.
 */
export async function pruneKeyIndex(
  redis: Redis,
  indexKey: string,
  member: string,
  keys: readonly [string, string],
): Promise<boolean> {
  return Number(await runLua(redis, PRUNE_IF_GONE, [indexKey, ...keys], [member])) === 1;
}
