/**
 * The record of every reveal an account paid for (docs/data-protection.md): person id, search, segment, run id and
 * time, never a contact value. One Redis list per UTC day (`<keyBase>:reveal-log:<day>`), one element per paid
 * page (its persons' ids share the page's time, run, search and segment), so a reveal costs about its id's
 * length. A day's list expires `logDays` after that day: the log trims itself as it goes. An erasure rewrites the
 * elements that name the person and appends one line saying an erasure happened (no id).
 */
import type { Redis } from 'ioredis';
import { luaScript, runLua } from '../shared/lua-script.js';
import { DAY_MS } from './reveal-store.js';

export const DEFAULT_REVEAL_LOG_DAYS = 400;

/** A batch of reveals: the persons one page revealed, all paid for by run `runId`. */
export interface RevealBatch {
  runId: string;
  search: string;
  segment: string;
  ids: readonly string[];
  atMs?: number;
}

/** One line of the log: a reveal (one person) or an erasure (no person). */
export type RevealLogLine =
  | { event: 'reveal'; at: string; personId: string; search: string; segment: string; runId: string }
  | { event: 'erasure'; at: string };

/** Stored forms: ["r", atMs, runId, search, segment, [ids]] and ["e", atMs]. */
type Stored = ['r', number, string, string, string, string[]] | ['e', number];

/** Elements read per LRANGE when a day is exported or searched. */
const PAGE = 1000;

/** Rewrites one element if it is still what was read (an erasure's own, race-free step). */
const REWRITE = luaScript('revealLogRewrite', 1, new URL('./reveal-log-rewrite.lua', import.meta.url));

export class RevealLog {
  constructor(
    private readonly redis: Redis,
    private readonly keyBase: string,
    readonly logDays: number = DEFAULT_REVEAL_LOG_DAYS,
  ) {}

  private dayKey(day: number): string {
    return `${this.keyBase}:reveal-log:${day}`;
  }

  /** Seconds since the epoch at which day `day`'s list is dropped. */
  private expiresAt(day: number): number {
    return ((day + this.logDays + 1) * DAY_MS) / 1000;
  }

  private async push(stored: Stored, atMs: number): Promise<void> {
    const day = Math.floor(atMs / DAY_MS);
    const key = this.dayKey(day);
    const results = await this.redis
      .multi()
      .rpush(key, JSON.stringify(stored))
      .expireat(key, this.expiresAt(day))
      .exec();
    const failed = results?.find(([err]) => err !== null);
    if (failed) throw failed[0] as Error;
  }

  /** Records a batch of paid reveals. */
  async append(batch: RevealBatch): Promise<void> {
    if (batch.ids.length === 0) return;
    const atMs = batch.atMs ?? Date.now();
    await this.push(['r', atMs, batch.runId, batch.search, batch.segment, [...batch.ids]], atMs);
  }

  /** The days still kept, oldest first, from `sinceMs` on. */
  private days(sinceMs: number | undefined, nowMs: number): number[] {
    const today = Math.floor(nowMs / DAY_MS);
    const first = Math.max(today - this.logDays, sinceMs === undefined ? -Infinity : Math.floor(sinceMs / DAY_MS));
    const days: number[] = [];
    for (let day = first; day <= today; day++) days.push(day);
    return days;
  }

  /** Elements of a day's list, page by page, with their index. */
  private async *elements(day: number): AsyncGenerator<{ index: number; raw: string }[]> {
    const key = this.dayKey(day);
    for (let start = 0; ; start += PAGE) {
      const page = await this.redis.lrange(key, start, start + PAGE - 1);
      if (page.length > 0) yield page.map((raw, i) => ({ index: start + i, raw }));
      if (page.length < PAGE) return;
    }
  }

  /** The log's lines from `since` (ms) on, oldest first; only the reveals of `search` when given (and erasures). */
  async *lines(options: { sinceMs?: number; search?: string; nowMs?: number } = {}): AsyncGenerator<RevealLogLine> {
    const nowMs = options.nowMs ?? Date.now();
    const oldest = nowMs - (this.logDays + 1) * DAY_MS;
    const since = Math.max(options.sinceMs ?? oldest, oldest);
    for (const day of this.days(since, nowMs)) {
      for await (const page of this.elements(day)) {
        for (const { raw } of page) {
          const stored = JSON.parse(raw) as Stored;
          if (stored[1] < since) continue;
          const at = new Date(stored[1]).toISOString();
          if (stored[0] === 'e') {
            yield { event: 'erasure', at };
            continue;
          }
          const [, , runId, search, segment, ids] = stored;
          if (options.search !== undefined && search !== options.search) continue;
          for (const personId of ids) yield { event: 'reveal', at, personId, search, segment, runId };
        }
      }
    }
  }

  /** How many reveals of person `id` the log holds (what `forget` would erase). */
  async count(id: string, nowMs = Date.now()): Promise<number> {
    let n = 0;
    for (const day of this.days(undefined, nowMs))
      for await (const page of this.elements(day)) for (const { raw } of page) n += this.named(raw, id).length;
    return n;
  }

  /** Indexes of `id` in a stored reveal batch (empty: not named, or an erasure line). */
  private named(raw: string, id: string): number[] {
    // Cheap test first: most elements do not hold the id's JSON form at all.
    if (!raw.includes(JSON.stringify(id))) return [];
    const stored = JSON.parse(raw) as Stored;
    if (stored[0] !== 'r') return [];
    return stored[5].flatMap((x, i) => (x === id ? [i] : []));
  }

  /**
   * Removes every reveal of person `id` (an element left without ids goes) and appends one erasure line (no id).
   * Returns how many reveals were removed.
   */
  async erase(id: string, nowMs = Date.now()): Promise<number> {
    let removed = 0;
    for (const day of this.days(undefined, nowMs)) {
      const key = this.dayKey(day);
      const hits: { index: number; raw: string }[] = [];
      for await (const page of this.elements(day)) hits.push(...page.filter((e) => this.named(e.raw, id).length > 0));
      // From the end: removing an element empties nothing before it, so earlier indexes stay right.
      for (const hit of hits.reverse()) removed += await this.rewrite(key, hit, id);
    }
    await this.push(['e', nowMs], nowMs);
    return removed;
  }

  /** Rewrites one element without `id`; read again and retried if another erasure changed it meanwhile. */
  private async rewrite(key: string, hit: { index: number; raw: string }, id: string): Promise<number> {
    let raw = hit.raw;
    for (;;) {
      const stored = JSON.parse(raw) as Stored;
      if (stored[0] !== 'r') return 0;
      const ids = stored[5].filter((x) => x !== id);
      const removed = stored[5].length - ids.length;
      if (removed === 0) return 0;
      const next = ids.length === 0 ? '' : JSON.stringify([...stored.slice(0, 5), ids]);
      const done = await runLua<number>(this.redis, REWRITE, [key], [hit.index, raw, next]);
      if (done === 1) return removed;
      const now = await this.redis.lindex(key, hit.index);
      if (now === null) return 0;
      raw = now;
    }
  }
}
