import type { Redis } from 'ioredis';

/** One record the CRM (or our mapping) refused. Never holds values: a reason naming a value is redacted first. */
export interface RejectEntry {
  key: string;
  object: string;
  code: string;
  reason: string;
  at: string;
}

export interface RejectStore {
  add(searchName: string, entries: RejectEntry[]): Promise<void>;
  /** Newest first. */
  list(searchName: string, options?: { limit?: number }): Promise<RejectEntry[]>;
  /** Match keys rejected and not accepted since: they are sent again next run. */
  retryable(searchName: string): Promise<string[]>;
  /** Records accepted again leave the retry set. */
  resolve(searchName: string, keys: string[]): Promise<void>;
}

/** The history keeps the last 1,000 rejects per search; the retry set is capped so a broken mapping cannot grow it without end. */
export const MAX_REJECT_HISTORY = 1000;
export const MAX_PENDING_REJECTS = 100_000;

export function rejectKeys(keyPrefix: string, searchName: string): { history: string; pending: string } {
  const base = `${keyPrefix}:crm:rejects:${searchName}`;
  return { history: `${base}:history`, pending: `${base}:pending` };
}

export function createRejectStore(redis: Redis, keyPrefix: string): RejectStore {
  return {
    async add(searchName, entries) {
      if (entries.length === 0) return;
      const keys = rejectKeys(keyPrefix, searchName);
      const pendingCount = await redis.scard(keys.pending);
      const multi = redis.multi().lpush(keys.history, ...entries.map((e) => JSON.stringify(e))).ltrim(keys.history, 0, MAX_REJECT_HISTORY - 1);
      if (pendingCount < MAX_PENDING_REJECTS) multi.sadd(keys.pending, ...entries.map((e) => e.key));
      await multi.exec();
    },
    async list(searchName, options = {}) {
      const limit = Math.min(Math.max(options.limit ?? 100, 1), MAX_REJECT_HISTORY);
      const raw = await redis.lrange(rejectKeys(keyPrefix, searchName).history, 0, limit - 1);
      return raw.map((line) => JSON.parse(line) as RejectEntry);
    },
    async retryable(searchName) {
      return (await redis.smembers(rejectKeys(keyPrefix, searchName).pending)).sort();
    },
    async resolve(searchName, keys) {
      if (keys.length > 0) await redis.srem(rejectKeys(keyPrefix, searchName).pending, ...keys);
    },
  };
}
