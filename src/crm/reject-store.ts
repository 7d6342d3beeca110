import type { Redis } from 'ioredis';
import { luaScript, runLua } from '../shared/lua-script.js';
import { chunks } from './chunks.js';
import { eraseMembers, eraseMentions, type KeyHit } from '../shared/key-erase.js';

/** One record the CRM (or our mapping) refused. Never holds values: a reason naming a value is redacted first. */
export interface RejectEntry {
  /** The match key; `#<index>` (position in the write) when the record had none. */
  key: string;
  object: string;
  code: string;
  /** The CRM field the refusal names, when it names one (rejects are grouped by code and field). */
  field?: string;
  reason: string;
  at: string;
  /** No match key: listed in the history only, never counted as waiting for a retry (nothing could match it). */
  keyless?: true;
  /**
   * 'link': the record landed but its link (e.g. person -> company) failed. Listed with the rejects; not in the
   * retry set, as the record is written: its change hash is not remembered, so the next run sends it (and the link)
   * again, and once that link succeeds the entry leaves the list (`resolveLinks`).
   */
  kind?: 'link';
}

export interface RejectStore {
  /** Stores rejects in one MULTI: history (trimmed) and, for keyed ones, the retry set (capped after the add). */
  add(searchName: string, entries: RejectEntry[]): Promise<void>;
  /** Newest first. */
  list(searchName: string, options?: { limit?: number }): Promise<RejectEntry[]>;
  /** Match keys rejected and not accepted since, sorted: sent again when the source returns them. */
  retryable(searchName: string): Promise<string[]>;
  /** How many match keys are in the retry set (≤ MAX_PENDING_REJECTS). */
  pendingCount(searchName: string): Promise<number>;
  /** Records the CRM accepted (with or without a link error) leave the retry set. */
  resolve(searchName: string, keys: string[]): Promise<void>;
  /** Records now linked to their company: their failed-link entries leave the list. Returns how many keys had one. */
  resolveLinks(searchName: string, keys: string[]): Promise<number>;
  /** How many match keys have a failed link listed. */
  linkCount(searchName: string): Promise<number>;
  /** Makes `instance` the search's current CRM instance: a store opened without one reads that instance's rejects. */
  useInstance(searchName: string, instance: string): Promise<void>;
}

/** The history keeps the last 1,000 rejects per search; the retry set keeps the newest 100,000 keys. */
export const MAX_REJECT_HISTORY = 1000;
export const MAX_PENDING_REJECTS = 100_000;
/** A search not run for this long loses its rejects (each add renews it): 30 days. */
export const REJECT_TTL_SECONDS = 30 * 24 * 3600;

/** Keys per ZADD, so a huge batch never spreads into one call's arguments. */
const ARGS_PER_COMMAND = 1000;

/**
 * Rejects are kept per search and CRM instance (portal / org, see CrmSink.identity): a new or restored instance
 * starts with none. The instance `default` (sinks without an identity) keeps the original key form.
 */
export function rejectKeys(
  keyPrefix: string,
  searchName: string,
  instance = 'default',
): { history: string; retry: string; links: string } {
  const base =
    instance === 'default'
      ? `${keyPrefix}:crm:rejects:${searchName}`
      : `${keyPrefix}:crm:rejects:${searchName}@${instance}`;
  // retry: a sorted set (score = time of the last reject) so the cap drops the oldest keys; links: the match keys
  // with a failed link in the history, so a write that linked them knows (one SREM) whether the history needs a look.
  return { history: `${base}:history`, retry: `${base}:retry`, links: `${base}:links` };
}

/** Drops the history's failed-link entries of keys a later write linked (the script says how). */
const RESOLVE_LINKS = luaScript('rejectLinksResolve', 2, new URL('./reject-links-resolve.lua', import.meta.url));

const instanceKey = (keyPrefix: string, searchName: string): string =>
  `${keyPrefix}:crm:rejects-instance:${searchName}`;

/** `instance`: the CRM instance written to; without it, the search's current instance (set by the writer). */
export function createRejectStore(redis: Redis, keyPrefix: string, instance?: string): RejectStore {
  const keysOf = async (searchName: string): Promise<{ history: string; retry: string; links: string }> =>
    rejectKeys(keyPrefix, searchName, instance ?? (await redis.get(instanceKey(keyPrefix, searchName))) ?? 'default');
  return {
    async useInstance(searchName, current) {
      await redis.set(instanceKey(keyPrefix, searchName), current, 'EX', REJECT_TTL_SECONDS);
    },
    async add(searchName, entries) {
      if (entries.length === 0) return;
      const keys = await keysOf(searchName);
      // Only the newest MAX_REJECT_HISTORY can survive the trim.
      const history = entries.slice(-MAX_REJECT_HISTORY).map((e) => JSON.stringify(e));
      const multi = redis
        .multi()
        .lpush(keys.history, ...history)
        .ltrim(keys.history, 0, MAX_REJECT_HISTORY - 1)
        .expire(keys.history, REJECT_TTL_SECONDS);
      const links = entries.filter((e) => e.kind === 'link').map((e) => e.key);
      if (links.length > 0) {
        for (const part of chunks(links, ARGS_PER_COMMAND)) multi.sadd(keys.links, ...part);
        multi.expire(keys.links, REJECT_TTL_SECONDS);
      }
      const retry = entries.filter((e) => e.keyless !== true && e.kind !== 'link').map((e) => e.key);
      if (retry.length > 0) {
        const score = String(Date.now());
        for (const part of chunks(retry, ARGS_PER_COMMAND))
          multi.zadd(keys.retry, ...part.flatMap((key) => [score, key]));
        // Cap after the add, in the same transaction: the newest MAX_PENDING_REJECTS keys stay.
        multi.zremrangebyrank(keys.retry, 0, -(MAX_PENDING_REJECTS + 1)).expire(keys.retry, REJECT_TTL_SECONDS);
      }
      const results = await multi.exec();
      const failed = results?.find(([err]) => err !== null);
      if (failed !== undefined) throw failed[0] as Error;
    },
    async list(searchName, options = {}) {
      const limit = Math.min(Math.max(options.limit ?? 100, 1), MAX_REJECT_HISTORY);
      const raw = await redis.lrange((await keysOf(searchName)).history, 0, limit - 1);
      return raw.map((line) => JSON.parse(line) as RejectEntry);
    },
    async retryable(searchName) {
      return (await redis.zrange((await keysOf(searchName)).retry, '0', '-1')).sort();
    },
    pendingCount: async (searchName) => redis.zcard((await keysOf(searchName)).retry),
    async resolve(searchName, keys) {
      const key = (await keysOf(searchName)).retry;
      for (const part of chunks(keys, ARGS_PER_COMMAND)) await redis.zrem(key, ...part);
    },
    async resolveLinks(searchName, keys) {
      const { history, links } = await keysOf(searchName);
      let resolved = 0;
      for (const part of chunks(keys, ARGS_PER_COMMAND))
        resolved += Number(await runLua(redis, RESOLVE_LINKS, [history, links], part));
      return resolved;
    },
    linkCount: async (searchName) => redis.scard((await keysOf(searchName)).links),
  };
}

/**
 * Erasure (`forget`): every reject of the person (match keys `keys`, or naming one of `texts`) leaves every search's
 * history, retry set and failed-link set.
 */
export async function forgetRejects(
  redis: Redis,
  keyPrefix: string,
  keys: readonly string[],
  texts: readonly string[],
  apply: boolean,
): Promise<KeyHit[]> {
  const pattern = `${keyPrefix}:crm:rejects:*`;
  return [
    ...(await eraseMembers(redis, pattern, keys, apply)),
    ...(await eraseMentions(redis, `${pattern}:history`, [...keys, ...texts], 'drop', apply)),
  ];
}
