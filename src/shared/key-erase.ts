/**
 * The two ways a store erases one person from its keys (`forget`, docs/data-protection.md), each store calling them
 * with its own key pattern: `eraseMembers` removes members or fields equal to the person's keys (sets, sorted sets,
 * hashes: membership, list marks, change hashes), `eraseMentions` rewrites stored texts that name them (summaries,
 * warnings, checkpoints, job results) or drops the elements that are about them (rejects). Both only count what they
 * find unless `apply`. Keys are found by SCAN with the store's pattern, values read in pages.
 */
import type { Redis } from 'ioredis';
import { luaScript, runLua } from './lua-script.js';

/** A key that holds the person, and how many members, fields or values of it. */
export interface KeyHit {
  key: string;
  count: number;
}

/** What stands in for an erased id or email in a text that is kept. */
export const ERASED_TEXT = '[erased]';

const REPLACE = luaScript('keyEraseReplace', 1, new URL('./key-erase.lua', import.meta.url));

const PAGE = 1000;

/** Every key matching `pattern`, by SCAN (a key may come twice). */
export async function* scanKeys(redis: Redis, pattern: string): AsyncGenerator<string> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    cursor = next;
    yield* new Set(keys);
  } while (cursor !== '0');
}

/** Members (sets, sorted sets) and fields (hashes) equal to one of `members`, in every key matching `pattern`. */
export async function eraseMembers(
  redis: Redis,
  pattern: string,
  members: readonly string[],
  apply: boolean,
): Promise<KeyHit[]> {
  const hits: KeyHit[] = [];
  if (members.length === 0) return hits;
  for await (const key of scanKeys(redis, pattern)) {
    const type = await redis.type(key);
    let found: string[] = [];
    if (type === 'set') {
      const is = await redis.smismember(key, ...members);
      found = members.filter((_, i) => is[i] === 1);
      if (apply && found.length > 0) await redis.srem(key, ...found);
    } else if (type === 'zset') {
      const scores = await redis.zmscore(key, ...members);
      found = members.filter((_, i) => scores[i] !== null);
      if (apply && found.length > 0) await redis.zrem(key, ...found);
    } else if (type === 'hash') {
      const values = await redis.hmget(key, ...members);
      found = members.filter((_, i) => values[i] !== null);
      if (apply && found.length > 0) await redis.hdel(key, ...found);
    }
    if (found.length > 0) hits.push({ key, count: found.length });
  }
  return hits;
}

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A test for `texts` as whole tokens (not inside a longer id: `p_1` is not in `p_12`). */
export function mentionPattern(texts: readonly string[]): RegExp {
  const alternatives = texts.map(escape).join('|');
  return new RegExp(`(?<![A-Za-z0-9_.+@-])(?:${alternatives})(?![A-Za-z0-9_@-])`, 'gi');
}

/**
 * Stored texts naming one of `texts` (strings, list elements, hash values; stream entries) in every key matching
 * `pattern`: rewritten with ERASED_TEXT in their place (`redact`), or dropped whole (`drop`: an element about the
 * person). Stream entries are always dropped (they cannot be rewritten).
 */
export async function eraseMentions(
  redis: Redis,
  pattern: string,
  texts: readonly string[],
  how: 'redact' | 'drop',
  apply: boolean,
): Promise<KeyHit[]> {
  const hits: KeyHit[] = [];
  const wanted = texts.filter((t) => t !== '');
  if (wanted.length === 0) return hits;
  const test = mentionPattern(wanted);
  const names = (value: string): boolean => {
    test.lastIndex = 0;
    return test.test(value);
  };
  const erased = (value: string): string => (how === 'drop' ? '' : value.replace(test, ERASED_TEXT));
  const replace = async (key: string, kind: string, field: string, old: string): Promise<void> => {
    const next = erased(old);
    // An element rewritten to '' would read as removed: a kept text is never empty after a rewrite.
    await runLua(redis, REPLACE, [key], [kind, field, old, next === '' && how === 'redact' ? ERASED_TEXT : next]);
  };
  for await (const key of scanKeys(redis, pattern)) {
    const type = await redis.type(key);
    let count = 0;
    if (type === 'string') {
      const value = await redis.get(key);
      if (value !== null && names(value)) {
        count = 1;
        if (apply) await replace(key, 'string', '', value);
      }
    } else if (type === 'list') {
      for (let start = 0; ; start += PAGE) {
        const page = await redis.lrange(key, start, start + PAGE - 1);
        const named = page.filter(names);
        count += named.length;
        if (apply) for (const value of named) await replace(key, 'list', '', value);
        if (page.length < PAGE) break;
        // a dropped element shifts the rest back: read the same page again
        if (apply && how === 'drop') start -= named.length;
      }
    } else if (type === 'hash') {
      let cursor = '0';
      do {
        const [next, flat] = await redis.hscan(key, cursor, 'COUNT', PAGE);
        cursor = next;
        for (let i = 0; i < flat.length; i += 2) {
          const field = flat[i]!;
          const value = flat[i + 1]!;
          if (!names(value)) continue;
          count += 1;
          if (apply) await replace(key, 'hash', field, value);
        }
      } while (cursor !== '0');
    } else if (type === 'stream') {
      const entries = await redis.xrange(key, '-', '+');
      const named = entries.filter(([, fields]) => fields.some(names)).map(([id]) => id);
      count = named.length;
      if (apply && named.length > 0) await redis.xdel(key, ...named);
    }
    if (count > 0) hits.push({ key, count });
  }
  return hits;
}
