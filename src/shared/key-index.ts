/**
 * An index of keys: a Redis SET naming what exists under a family of keys (budget accounts, rate governors), kept by
 * the code that writes those keys, so readers such as /metrics find them without SCANning the whole keyspace (a SCAN
 * with MATCH still walks every key of the database).
 */
import type { Redis } from 'ioredis';

const builtKey = (indexKey: string): string => `${indexKey}:built`;

// KEYS: index, then the member's keys. ARGV: member. Atomic, so a writer that recreates a key between a reader's
// look and its removal is never dropped from the index.
const PRUNE_IF_GONE = `
if redis.call('EXISTS', unpack(KEYS, 2)) == 0 then return redis.call('SREM', KEYS[1], ARGV[1]) end
return 0`;

/**
 * The index's members. Its first read on a database that predates the index (no `<index>:built` marker) fills it
 * once from `backfill` (a SCAN of the indexed keys); every later read is one SMEMBERS.
 */
export async function readKeyIndex(redis: Redis, indexKey: string, backfill: () => Promise<string[]>): Promise<string[]> {
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
export async function pruneKeyIndex(redis: Redis, indexKey: string, member: string, keys: readonly string[]): Promise<boolean> {
  return Number(await redis.eval(PRUNE_IF_GONE, 1 + keys.length, indexKey, ...keys, member)) === 1;
}
