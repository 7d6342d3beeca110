/**
 * When this account last revealed each person's contacts, in Redis, so a contacts search pays credits only for
 * persons not revealed yet (or revealed longer ago than `refreshAfterDays`). Compact: a person is 8 bytes of
 * SHA-1 of its id; the first 2 bytes pick one of 65,536 bucket hashes, the other 6 are the field, and the value is
 * the UTC day number. Buckets stay small enough (<= 128 entries up to ~8M persons) for Redis's compact listpack
 * encoding, whose cost per person docs/runs.md gives. A collision (two ids sharing 64 bits, ~1 in 10^12 for a million
 * persons) would skip one reveal.
 *
 * Besides, per search and run, a tally of the persons the run saw by reveal day: `plan` forecasts the next run's
 * credits from the last run's tally (see reveal-planner.ts).
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

export const DAY_MS = 86_400_000;

/** Glob of every reveal-tally key of search `search` (any account, any filter): for expiring a removed search. */
export function revealTallyPattern(prefix: string, search: string): string {
  return `${prefix}:source:*:reveal-tally:${search}:*`;
}
const BUCKET_KEY_TTL_SECONDS = 400 * 86_400;

function personKey(id: string): { bucket: string; field: Buffer } {
  const h = createHash('sha1').update(id).digest();
  return { bucket: h.toString('hex', 0, 2), field: h.subarray(2, 8) };
}

export class RevealStore {
  readonly refreshAfterDays: number;

  constructor(
    private readonly redis: Redis,
    private readonly keyBase: string,
    refreshAfterDays: number,
  ) {
    this.refreshAfterDays = refreshAfterDays;
  }

  private bucketKey(bucket: string): string {
    return `${this.keyBase}:reveal:${bucket}`;
  }

  today(now = Date.now()): number {
    return Math.floor(now / DAY_MS);
  }

  /** A person revealed on `day` needs no reveal today. */
  isFresh(day: number | null, today = this.today()): boolean {
    return day !== null && today - day < this.refreshAfterDays;
  }

  /** Day each person was last revealed, or null (one round trip). */
  async lookup(ids: readonly string[]): Promise<(number | null)[]> {
    if (ids.length === 0) return [];
    const pipe = this.redis.pipeline();
    for (const id of ids) {
      const k = personKey(id);
      pipe.hget(this.bucketKey(k.bucket), k.field as unknown as string);
    }
    const results = (await pipe.exec()) ?? [];
    return results.map(([err, value]) => {
      if (err) throw err;
      return typeof value === 'string' && value !== '' ? Number(value) : null;
    });
  }

  /** Records that these persons' contacts were revealed at `atMs` (call once the CRM holds them). */
  async mark(ids: readonly string[], atMs = Date.now()): Promise<void> {
    if (ids.length === 0) return;
    const day = String(this.today(atMs));
    const pipe = this.redis.pipeline();
    const touched = new Set<string>();
    for (const id of ids) {
      const k = personKey(id);
      const key = this.bucketKey(k.bucket);
      pipe.hset(key, k.field as unknown as string, day);
      touched.add(key);
    }
    for (const key of touched) pipe.expire(key, BUCKET_KEY_TTL_SECONDS);
    const results = (await pipe.exec()) ?? [];
    const failed = results.find(([err]) => err !== null);
    if (failed) throw failed[0] as Error;
  }

  /**
   * Erasure (`forget`): the person's reveal mark goes (their id's 8 bytes of SHA-1). Returns whether it was there;
   * counts only unless `apply`.
   */
  async forget(id: string, apply: boolean): Promise<boolean> {
    const k = personKey(id);
    const key = this.bucketKey(k.bucket);
    const field = k.field as unknown as string;
    return apply ? (await this.redis.hdel(key, field)) === 1 : (await this.redis.hexists(key, field)) === 1;
  }

  private tallyKey(searchKey: string, runId: string): string {
    return `${this.keyBase}:reveal-tally:${searchKey}:${runId}`;
  }

  private lastKey(searchKey: string): string {
    return `${this.keyBase}:reveal-tally:${searchKey}:last`;
  }

  /**
   * Adds persons seen by a run, by reveal day, and makes this run the search's latest tally. Only the latest is ever
   * read, so the run it replaces loses its tally at once: a search keeps one tally, not one per run.
   */
  async tally(searchKey: string, runId: string, byDay: ReadonlyMap<number, number>): Promise<void> {
    const key = this.tallyKey(searchKey, runId);
    const multi = this.redis.multi();
    for (const [day, n] of byDay) multi.hincrby(key, String(day), n);
    multi.expire(key, BUCKET_KEY_TTL_SECONDS).set(this.lastKey(searchKey), runId, 'EX', BUCKET_KEY_TTL_SECONDS, 'GET');
    const results = (await multi.exec()) ?? [];
    const failed = results.find(([err]) => err !== null);
    if (failed) throw failed[0] as Error;
    const previous = results.at(-1)?.[1];
    if (typeof previous === 'string' && previous !== runId) await this.redis.unlink(this.tallyKey(searchKey, previous));
  }

  /** The latest run's tally of a search (persons seen by reveal day), or null. */
  async lastTally(searchKey: string): Promise<{ runId: string; byDay: Map<number, number> } | null> {
    const runId = await this.redis.get(this.lastKey(searchKey));
    if (runId === null) return null;
    const raw = await this.redis.hgetall(this.tallyKey(searchKey, runId));
    return { runId, byDay: new Map(Object.entries(raw).map(([d, n]) => [Number(d), Number(n)])) };
  }
}
