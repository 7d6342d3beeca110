/**
 * Which records a saved search matches, per CRM instance: the mirror's state (docs/runs.md, Mirror). A run adds the
 * match keys of every committed batch to its own matched set (kept by run id, so a resumed attempt adds to it);
 * only a complete run's set is compared with the membership (`settle`), which says who entered, who left (absent
 * from `confirmRuns` consecutive complete runs) and whether the leave guard holds the leavers back.
 * Every read and write goes in bounded steps (cursor pages, chunked commands): neither Redis nor the worker handles a
 * whole set at once. Keys share one hash tag per search, so a step is one script on a Redis Cluster too.
 */
import type { Redis } from 'ioredis';
import { chunks } from '../crm/chunks.js';
import { luaScript, runLua } from '../shared/lua-script.js';
import { eraseMembers, scanKeys, type KeyHit } from '../shared/key-erase.js';
import { RECORD_STATE_PRELUDE, recordStateKeys, searchStateBase } from '../shared/record-state.js';
import { DEFAULT_RUNS_PREFIX } from './run-keys.js';

/** A run's matched set outlives a delayed run's checkpoint (up to 48 h) so its resumed attempt still adds to it. */
export const RUN_MATCHED_TTL_SECONDS = 72 * 3600;

export interface LeaveRules {
  confirmRuns: number;
  maxShare: number;
}

export interface Settled {
  entered: number;
  left: number;
  matched: number;
  /** The matches fell by more than `maxShare` since the guard's baseline, or to 0: nobody is acted on. */
  guarded: boolean;
  /** Confirmed leavers not acted on yet. */
  pending: number;
}

/** A dry run's forecast: the settle's figures and the list keys the run would add and remove. */
export interface Forecast extends Settled {
  listAdds: number;
  listRemoves: number;
}

/** A search's mirror now: its members, the confirmed leavers not acted on, the members not in its CRM list yet. */
export interface MembershipCounts {
  members: number;
  pending: number;
  unlisted: number;
}

/** Keys per Redis command: a whole set in one call overflows Node's argument limit and blocks Redis. */
export const KEYS_PER_COMMAND = 1000;
/** Keys per page when a set is read in cursor steps. */
export const KEYS_PER_PAGE = 5000;

/**
 * A set's members in cursor steps (SSCAN): neither Redis nor the worker handles the whole set at once. A page has
 * no repeats; SSCAN may return a key again in a later page.
 */
export async function* setPages(redis: Redis, key: string): AsyncGenerator<string[]> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.sscan(key, cursor, 'COUNT', KEYS_PER_PAGE);
    cursor = next;
    if (keys.length > 0) yield [...new Set(keys)];
  } while (cursor !== '0');
}

/** Entries a settle step visits (SSCAN COUNT): the work of one call, whatever the size of the sets. */
const SETTLE_STEP = 500;
const SETTLE = luaScript(
  'membershipSettleStep',
  7,
  new URL('./step-progress.lua', import.meta.url),
  ...RECORD_STATE_PRELUDE,
  new URL('./membership-settle-step.lua', import.meta.url),
);
const RECORDS = luaScript(
  'membershipRecords',
  3,
  ...RECORD_STATE_PRELUDE,
  new URL('./membership-records.lua', import.meta.url),
);
/** Record flags: the membership's part of a record's field (src/shared/record-state.lua). */
const MEMBER = 1;
const LISTED = 2;
/** Ids per flags call, and entries of the layout before moved per migration step. */
const RECORDS_STEP = 250;
/** Fields per page of the record flags (whole buckets: a page may hold a bucket more). */
const RECORDS_PAGE = 1000;

const base = searchStateBase;

/**
 * Glob of a search's membership keys in every CRM instance (members, absence counts, pending leavers, guard); a
 * run's matched set (`:run:`, with a TTL of its own) matches it too and is told apart by `isRunMatchedKey`.
 */
export function membershipKeysPattern(search: string, prefix: string = DEFAULT_RUNS_PREFIX): string {
  return `${base(search, prefix)}:*`;
}

export function isRunMatchedKey(key: string, search: string, prefix: string = DEFAULT_RUNS_PREFIX): boolean {
  return key.startsWith(`${base(search, prefix)}:run:`);
}

export function runMatchedKey(search: string, runId: string, prefix: string = DEFAULT_RUNS_PREFIX): string {
  return `${base(search, prefix)}:run:${runId}`;
}

/** Adds one committed batch's match keys to the run's matched set (and renews its TTL). */
export async function addRunMatched(
  redis: Redis,
  search: string,
  runId: string,
  keys: readonly string[],
  prefix: string = DEFAULT_RUNS_PREFIX,
): Promise<void> {
  if (keys.length === 0) return;
  const key = runMatchedKey(search, runId, prefix);
  const multi = redis.multi();
  for (const part of chunks(keys, KEYS_PER_COMMAND)) multi.sadd(key, ...part);
  await multi.expire(key, RUN_MATCHED_TTL_SECONDS).exec();
}

/** Drops a run's matched set: the run ended without a complete walk and nothing will resume it. */
export async function dropRunMatched(
  redis: Redis,
  search: string,
  runId: string,
  prefix: string = DEFAULT_RUNS_PREFIX,
): Promise<void> {
  await redis.unlink(runMatchedKey(search, runId, prefix));
}

export class MembershipStore {
  private readonly keys: {
    records: string;
    buckets: string;
    members: string;
    absent: string;
    pending: string;
    meta: string;
    listed: string;
  };
  /** The layout before (the `members` and `listed` sets) moved into the record flags by this object already. */
  private migrated = false;

  constructor(
    private readonly redis: Redis,
    private readonly search: string,
    instance: string,
    private readonly prefix: string = DEFAULT_RUNS_PREFIX,
  ) {
    const b = `${base(search, prefix)}:${instance}`;
    const records = recordStateKeys(prefix, search, instance);
    this.keys = {
      records: records.meta,
      buckets: records.buckets,
      members: `${b}:members`,
      absent: `${b}:absent`,
      pending: `${b}:pending`,
      meta: `${b}:meta`,
      listed: `${b}:listed`,
    };
  }

  /** A complete run's matched set becomes the membership (its set is consumed), step by step. */
  async settle(runId: string, rules: LeaveRules): Promise<Settled> {
    for (;;) {
      const settled = await this.settleStep(runId, rules);
      if (settled !== null) return settled;
    }
  }

  /**
   * One bounded step of `settle`: its figures once the last step ran, else null. A settle cut off between steps
   * (the worker gone) goes on where it was when `settle` is called again for the run.
   */
  async settleStep(runId: string, rules: LeaveRules): Promise<Settled | null> {
    await this.migrate();
    const { records, buckets, absent, pending, meta } = this.keys;
    const matched = runMatchedKey(this.search, runId, this.prefix);
    // Beside the run's matched set (`:run:`): transient, and told apart from the membership as it is.
    const keys = [records, absent, pending, meta, matched, `${matched}:settle`, `${matched}:leaving`];
    const args = [rules.confirmRuns, rules.maxShare, SETTLE_STEP, RUN_MATCHED_TTL_SECONDS, buckets];
    const reply = (await runLua<number[]>(this.redis, SETTLE, keys, args)).map(Number);
    const [done, entered, left, count, guarded, waiting] = reply as [number, number, number, number, number, number];
    return done === 1 ? { entered, left, matched: count, guarded: guarded === 1, pending: waiting } : null;
  }

  /**
   * What settling a dry run's matched set would do (its set is consumed, the membership unchanged): `left` counts
   * the members it would confirm, `pending` the leavers pending before that it does not match; with a list,
   * `listAdds` the members not in it after the settle, `listRemoves` the leavers in it that `removeFromList` takes
   * out (none when the guard holds them). Read page by page.
   */
  async forecast(runId: string, rules: LeaveRules, list: 'none' | 'list' | 'removeFromList'): Promise<Forecast> {
    await this.migrate();
    const { absent, pending, meta } = this.keys;
    const run = runMatchedKey(this.search, runId, this.prefix);
    const [matched, baselineText] = await Promise.all([this.redis.scard(run), this.redis.hget(meta, 'baseline')]);
    const baseline = baselineText === null ? null : Number(baselineText);
    const guarded =
      matched === 0 || (baseline !== null && baseline > 0 && (baseline - matched) / baseline > rules.maxShare);
    const removing = list === 'removeFromList' && !guarded;
    const f = { entered: 0, left: 0, pending: 0, listAdds: 0, listRemoves: 0 };
    for await (const page of this.pages(run)) {
      const flags = await this.flags(page);
      flags.forEach((flag) => {
        if ((flag & MEMBER) !== 0) return;
        f.entered += 1;
        // After the settle the members are (members - leaving) + matched: those not in the list yet are added.
        if (list !== 'none' && (flag & LISTED) === 0) f.listAdds += 1;
      });
    }
    for await (const entries of this.recordPages()) {
      const page = entries.filter((e) => (e.flags & MEMBER) !== 0);
      if (page.length === 0) continue;
      const ids = page.map((e) => e.id);
      const [inRun, absences] = await Promise.all([
        this.redis.smismember(run, ...ids),
        this.redis.hmget(absent, ...ids),
      ]);
      page.forEach((e, i) => {
        const leaving = inRun[i] === 0 && Number(absences[i] ?? 0) + 1 >= rules.confirmRuns;
        const inList = (e.flags & LISTED) !== 0;
        if (leaving) f.left += 1;
        if (list === 'none') return;
        if (!leaving && !inList) f.listAdds += 1;
        if (leaving && removing && inList) f.listRemoves += 1;
      });
    }
    // The leavers acted on are the pending ones not matched again and the newly confirmed: removed if in the list.
    for await (const page of this.pages(pending)) {
      const [inRun, flags] = await Promise.all([this.redis.smismember(run, ...page), this.flags(page)]);
      page.forEach((_, i) => {
        if (inRun[i] === 1) return;
        f.pending += 1;
        if (removing && (flags[i]! & LISTED) !== 0) f.listRemoves += 1;
      });
    }
    await this.redis.unlink(run);
    return { ...f, matched, guarded };
  }

  /** The mirror's size now; `unlisted` only for a search with a list (`withList`), else 0. */
  async counts(withList: boolean): Promise<MembershipCounts> {
    await this.migrate();
    const { records, pending } = this.keys;
    const [m, p] = await Promise.all([this.redis.hget(records, 'm'), this.redis.scard(pending)]);
    let unlisted = 0;
    if (withList) for await (const page of this.unlistedPages()) unlisted += page.length;
    return { members: Number(m ?? 0), pending: p, unlisted };
  }

  /** Confirmed leavers not acted on yet (match keys, sorted): what `leavers` lists. */
  async pending(): Promise<string[]> {
    const all: string[] = [];
    for await (const page of this.pages(this.keys.pending)) all.push(...page);
    return [...new Set(all)].sort();
  }

  /** Confirmed leavers not acted on yet, page by page (a page may repeat keys of an earlier one). */
  pendingPages(): AsyncGenerator<string[]> {
    return this.pages(this.keys.pending);
  }

  /** How many confirmed leavers are not acted on yet. */
  async pendingCount(): Promise<number> {
    return this.redis.scard(this.keys.pending);
  }

  /**
   * These keys were found suppressed: each member or pending leaver among them leaves at once (no absence count,
   * never pending); returns those that did.
   */
  async leaveSuppressed(keys: readonly string[]): Promise<string[]> {
    await this.migrate();
    const { absent, pending } = this.keys;
    const gone: string[] = [];
    for (const part of chunks(keys, RECORDS_STEP)) {
      const [before, inPending] = await Promise.all([
        this.records('leave', 0, part) as Promise<number[]>,
        this.redis.smismember(pending, ...part),
      ]);
      const left = part.filter((_, i) => (Number(before[i]) & MEMBER) !== 0 || inPending[i] === 1);
      if (left.length === 0) continue;
      await this.redis
        .multi()
        .srem(pending, ...left)
        .hdel(absent, ...left)
        .exec();
      gone.push(...left);
    }
    return gone;
  }

  /** These leavers were acted on (or need nothing): no longer pending. */
  async done(keys: readonly string[]): Promise<void> {
    for (const part of chunks(keys, KEYS_PER_COMMAND)) await this.redis.srem(this.keys.pending, ...part);
  }

  private pages(key: string): AsyncGenerator<string[]> {
    return setPages(this.redis, key);
  }

  /**
   * The search's CRM list is `listId` now: a list other than the one kept (renamed in the config, or recreated in
   * the CRM) starts with nobody marked as listed, so every member is added to it.
   */
  async keepListId(listId: string): Promise<void> {
    await this.migrate();
    if ((await this.redis.hget(this.keys.meta, 'listId')) === listId) return;
    // Marks cleared bucket by bucket before the new list id is kept: a clear cut off is done again next time.
    let cursor = 0;
    do cursor = Number(await this.records('unlist', RECORDS_PAGE, [String(cursor)]));
    while (cursor !== 0);
    await this.redis.hset(this.keys.meta, 'listId', listId);
  }

  /**
   * Members not in the search's CRM list yet, in pages of RECORDS_PAGE keys (the last may be shorter): the list's
   * calls take 100 keys each, so whole pages cost no part-filled call. Keys are checked against the list marks when
   * their bucket is read, so keys marked listed meanwhile are not returned again.
   */
  async *unlistedPages(): AsyncGenerator<string[]> {
    await this.migrate();
    // Full pages whatever the buckets hold: a list call takes a whole number of them (no part batch per bucket page).
    const carry: string[] = [];
    for await (const entries of this.recordPages()) {
      for (const e of entries) if (e.flags === MEMBER) carry.push(e.id);
      while (carry.length >= RECORDS_PAGE) yield carry.splice(0, RECORDS_PAGE);
    }
    if (carry.length > 0) yield carry;
  }

  /** These keys are in the search's CRM list now (`true`) or no longer (`false`). */
  async markListed(keys: readonly string[], listed: boolean): Promise<void> {
    await this.migrate();
    for (const part of chunks(keys, RECORDS_STEP)) await this.records('list', listed ? 1 : 0, part);
  }

  /** A step of the record flags' script (membership-records.lua). */
  private async records(op: string, count: number, rest: readonly string[]): Promise<unknown> {
    const { records, members, listed, buckets } = this.keys;
    return runLua(this.redis, RECORDS, [records, members, listed], [op, buckets, count, ...rest]);
  }

  /** Flags of these ids (0: none). */
  private async flags(ids: readonly string[]): Promise<number[]> {
    const out: number[] = [];
    for (const part of chunks(ids, RECORDS_STEP)) out.push(...((await this.records('get', 0, part)) as number[]));
    return out;
  }

  /** Every record with a flag, whole buckets a page (a record appears once unless it was added meanwhile). */
  private async *recordPages(): AsyncGenerator<{ id: string; flags: number }[]> {
    let cursor = 0;
    do {
      const [next, flat] = (await this.records('page', RECORDS_PAGE, [String(cursor)])) as [number, string[]];
      cursor = Number(next);
      const page: { id: string; flags: number }[] = [];
      for (let i = 0; i < flat.length; i += 2) page.push({ id: flat[i]!, flags: Number(flat[i + 1]) });
      if (page.length > 0) yield page;
    } while (cursor !== 0);
  }

  /**
   * The layout before (members and list marks as two sets) moves into the record flags in bounded steps, once, before
   * anything reads or writes them.
   */
  private async migrate(): Promise<void> {
    if (this.migrated) return;
    let left: number;
    do left = Number(await this.records('migrate', RECORDS_STEP, []));
    while (left > 0);
    this.migrated = true;
  }

  /** Leavers applied on purpose: the last run's matches become the guard's baseline. */
  async acceptLastMatched(): Promise<void> {
    const last = await this.redis.hget(this.keys.meta, 'lastMatched');
    if (last !== null) await this.redis.hset(this.keys.meta, 'baseline', last);
  }
}

/**
 * Erasure (`forget`): the match keys `keys` leave the search's membership in every CRM instance (members, absence
 * counts, pending leavers, list marks, runs' matched sets). Counts only unless `apply`.
 */
export async function forgetMember(
  redis: Redis,
  search: string,
  keys: readonly string[],
  apply: boolean,
  prefix: string = DEFAULT_RUNS_PREFIX,
): Promise<KeyHit[]> {
  const pattern = membershipKeysPattern(search, prefix);
  const hits = await eraseMembers(redis, pattern, keys, false);
  if (!apply || hits.length === 0) return hits;
  // The record fields first (flags and change fingerprint), through their own script (it keeps the bucket and member
  // counts), then the rest.
  for await (const meta of scanKeys(redis, `${base(search, prefix)}:*:records`)) {
    const b = meta.slice(0, -':records'.length);
    for (const part of chunks(keys, RECORDS_STEP))
      await runLua(redis, RECORDS, [meta, `${b}:members`, `${b}:listed`], ['forget', `${meta}:`, 0, ...part]);
  }
  await eraseMembers(redis, pattern, keys, true);
  return hits;
}
