/**
 * The one request governor of every remote (the Sales-Intelligence API per operation, each HubSpot portal, each
 * Salesforce org), with its state in Redis so every run and every process of one account shares it.
 *
 * Algorithm: the server counts requests in a window whose phase we do not know. We keep a sliding log of grants
 * (Redis TIME, one clock for all processes) and allow at most `limit` of them in any span of `window + guard`. A
 * grant is in the log from the moment it is given, and is stamped again when its answer (or its failure) arrives:
 * an answer comes after the request reached the server, so any server window that counted the request also
 * overlaps the log entry, however late the request arrived (a loaded machine, a slow connection). The small
 * guard only absorbs timer slop; a grant is held for about one window plus the request's latency, or less when the
 * answer says when the server's window that counted it ends (`windowEndsInMs`: a fixed-window server's reset):
 * from then on the request counts in no window, so its grant leaves the log at that end plus the guard.
 * Until a limit is known the governor either lets one probe request run at a time ('probe'), runs unspaced
 * ('open'), or uses a configured limit. A 429 blocks the operation for every process (`block`); a used-up daily
 * allowance closes it (`close`): `acquire` then throws the remote's own error.
 *
 * Metrics (for the observability side): per (remote, account, operation) the requests by outcome class and the
 * total time waited in `acquire`, read with `listGovernorSnapshots` (governor-snapshots.ts). Account labels are
 * hashes or portal ids, never secrets. The scripts are the governor-*.lua files next to this one.
 */
import { randomUUID } from 'node:crypto';
import type { ChainableCommander, Redis } from 'ioredis';
import { sleep } from './abortable-sleep.js';
import { defineLua, queueLua, runLua, luaScript } from './lua-script.js';
import { REDIS_NOW_LUA } from './redis-now.js';

const LEARN_FN = new URL('./governor-learn-fn.lua', import.meta.url);
const ACQUIRE = luaScript('governorAcquire', 3, REDIS_NOW_LUA, new URL('./governor-acquire.lua', import.meta.url));
const LEARN = luaScript('governorLearn', 4, REDIS_NOW_LUA, LEARN_FN, new URL('./governor-learn.lua', import.meta.url));
const ANSWER = luaScript(
  'governorAnswer',
  5,
  REDIS_NOW_LUA,
  LEARN_FN,
  new URL('./governor-answer.lua', import.meta.url),
);
const HOLD = luaScript('governorHold', 1, REDIS_NOW_LUA, new URL('./governor-hold.lua', import.meta.url));
const HEARTBEAT = luaScript(
  'governorHeartbeat',
  1,
  REDIS_NOW_LUA,
  new URL('./governor-heartbeat.lua', import.meta.url),
);

export type OutcomeClass = '2xx' | '4xx' | '5xx' | '429' | 'network';

/** The outcome class of an answer's HTTP status (undefined: no answer). */
export function outcomeClass(status: number | undefined): OutcomeClass {
  if (status === undefined) return 'network';
  if (status === 429) return '429';
  if (status >= 500) return '5xx';
  if (status >= 400) return '4xx';
  return '2xx';
}

export interface LearnedLimit {
  limit: number;
  windowMs: number;
  mode: 'headers' | 'fallback';
}

export interface DailyAllowance {
  limit: number;
  remaining: number;
}

/** What one request's answer (or its lack) tells the governor; written by `settle` in one Redis call. */
export interface AnswerFacts {
  outcome: OutcomeClass;
  /** The grant from `acquire`: stamped again now. */
  grant?: string | undefined;
  /** No answer: free the probe slot at once so other processes need not wait for it to expire. */
  releaseProbe?: boolean;
  /** The limit the answer taught (written only when new, or when `remaining` needs booking). */
  learned?: LearnedLimit | undefined;
  /** The server's remaining allowance in the window (books other clients' share). */
  remaining?: number | undefined;
  daily?: DailyAllowance | undefined;
  /**
   * The latest the server's window that counted this request can end, in ms from now (a fixed-window server's
   * reset, its rounding included). The grant leaves the log then (plus the guard) when that is sooner than a whole
   * span: a request counted in a window that has ended counts in no later one.
   */
  windowEndsInMs?: number | undefined;
}

/**
 * Commands a caller sends in the same Redis round trip as `acquire`'s first try (before it), and what it does with
 * their replies. What `read` throws ends `acquire` (a grant already given is cancelled).
 */
export interface Alongside {
  append(batch: ChainableCommander): void;
  read(replies: unknown[]): void;
}

export interface GovernorSettings {
  /** Extra span (ms) a grant stays in the log after its answer; -1 (default): 0.5% of the window, 25..250 ms. */
  guardMs?: number;
  /** Before any limit is learned: one probe at a time, unspaced, or this limit. */
  untilLearned: 'probe' | 'open' | { limit: number; windowMs: number };
  /** The window assumed for probe bookkeeping before one is learned. */
  defaultWindowMs?: number;
  /** What `acquire` throws while the operation is closed (daily allowance used up). */
  closedError?: (operation: string, closedForMs: number) => Error;
}

const STATE_TTL_MS = 24 * 3600 * 1000;
const STATS_TTL_S = 7 * 24 * 3600;
const PROBE_TTL_MS = 10_000;
/** How long this process trusts its last write of an unchanged limit before writing it to Redis again. */
const REWRITE_AFTER_MS = 5_000;
/** The stats key's expiry is renewed at most this often per operation (it lasts STATS_TTL_S). */
const STATS_TOUCH_AFTER_MS = 60_000;

const limitKey = (learned: LearnedLimit): string => `${learned.limit}/${learned.windowMs}/${learned.mode}`;

/** Keys of one (remote, account, operation) under `prefix`. Labels never contain ':'. */
/** The SET of `remote:account:operation` with governor state under `prefix` (read by /metrics instead of a SCAN). */
export const governorIndexKey = (prefix: string): string => `${prefix}:index:governors`;

export function governorKeys(
  prefix: string,
  remote: string,
  account: string,
  operation: string,
): { log: string; state: string; probe: string; stats: string; runs: string } {
  const base = `${prefix}:gov:${remote}:${account}:${operation}`;
  return {
    log: `${base}:log`,
    state: `${base}:state`,
    probe: `${base}:probe`,
    stats: `${base}:stats`,
    runs: `${base}:runs`,
  };
}

export class RateGovernor {
  private readonly written = new Map<string, { key: string; at: number }>();
  private readonly statsTouched = new Map<string, number>();

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    readonly remote: string,
    readonly account: string,
    private readonly settings: GovernorSettings,
  ) {
    for (const label of [remote, account])
      if (label.includes(':')) throw new Error(`governor label ${label} must not contain ':'`);
    // before any batch is made: batches carry the commands their connection had then
    defineLua(redis, ACQUIRE, LEARN, ANSWER, HOLD, HEARTBEAT);
  }

  private keys(op: string): ReturnType<typeof governorKeys> {
    return governorKeys(this.prefix, this.remote, this.account, op);
  }

  private member(op: string): string {
    return `${this.remote}:${this.account}:${op}`;
  }

  /**
   * Waits until a request of `op` may be sent now; the grant counts as in flight immediately. Returns the grant's
   * id, to be passed to `record` with the request's outcome.
   */
  async acquire(op: string, signal?: AbortSignal, alongside?: Alongside): Promise<string> {
    const k = this.keys(op);
    const until = this.settings.untilLearned;
    const fixed = typeof until === 'object' ? until : undefined;
    const mode = typeof until === 'object' ? 'limit' : until;
    const defaultWindowMs = this.settings.defaultWindowMs ?? fixed?.windowMs ?? 10_000;
    const grant = randomUUID();
    const keys = [k.log, k.state, k.probe];
    const args = [
      this.settings.guardMs ?? -1,
      grant,
      PROBE_TTL_MS,
      defaultWindowMs,
      mode,
      fixed?.limit ?? 0,
      fixed?.windowMs ?? 0,
    ];
    let waitedMs = 0;
    let first = alongside;
    for (;;) {
      let answer: [number, number];
      if (first === undefined) answer = await runLua<[number, number]>(this.redis, ACQUIRE, keys, args);
      else {
        // The caller's commands go first, in the same round trip as the grant.
        const batch = this.redis.pipeline();
        first.append(batch);
        const replies = (await queueLua(batch, ACQUIRE, keys, args).exec()) ?? [];
        const failed = replies.find(([err]) => err !== null)?.[0];
        if (failed) throw failed;
        answer = replies.at(-1)?.[1] as [number, number];
        const taken = first;
        first = undefined;
        try {
          taken.read(replies.slice(0, -1).map(([, reply]) => reply));
        } catch (error) {
          if (answer[0] === 1) await this.cancel(op, grant);
          throw error;
        }
      }
      const [granted, ms] = answer;
      if (granted === 1) break;
      if (granted === 2)
        throw (this.settings.closedError ?? ((o) => new Error(`${this.remote} ${o} is closed`)))(op, ms);
      // A little jitter so waiting processes do not wake in lockstep.
      const wait = ms + Math.random() * 5;
      await sleep(wait, signal);
      waitedMs += wait;
    }
    if (waitedMs > 0) {
      await this.redis
        .pipeline()
        .hincrby(k.stats, 'waitedMs', Math.round(waitedMs))
        .expire(k.stats, STATS_TTL_S)
        .sadd(governorIndexKey(this.prefix), this.member(op))
        .exec();
    }
    return grant;
  }

  /** A grant that will not be used (its request is not sent): out of the log, and the probe slot freed. */
  async cancel(op: string, grant: string): Promise<void> {
    const k = this.keys(op);
    await this.redis.multi().zrem(k.log, grant).del(k.probe).exec();
  }

  /** Stores a learned (or fallback) limit; `remaining` (when the server says it) books other clients' share. */
  async learn(op: string, learned: LearnedLimit, remaining?: number): Promise<void> {
    if (!this.learnNeeded(op, learned, remaining)) return;
    const k = this.keys(op);
    await runLua(
      this.redis,
      LEARN,
      [k.state, k.probe, k.log, governorIndexKey(this.prefix)],
      [learned.limit, learned.windowMs, learned.mode, STATE_TTL_MS, remaining ?? -1, randomUUID(), this.member(op)],
    );
    this.learnWritten(op, learned);
  }

  /** Saves a Redis write per request while the limit is unchanged (and no `remaining` needs booking). */
  private learnNeeded(op: string, learned: LearnedLimit, remaining: number | undefined): boolean {
    const last = this.written.get(op);
    return remaining !== undefined || last?.key !== limitKey(learned) || Date.now() - last.at >= REWRITE_AFTER_MS;
  }

  private learnWritten(op: string, learned: LearnedLimit): void {
    this.written.set(op, { key: limitKey(learned), at: Date.now() });
  }

  /**
   * Settles a request (as the budget ledger settles a reservation, with what it actually used): writes what its
   * answer taught in ONE Redis round trip: outcome count, restamp of its grant, probe release, `learn` and the daily
   * allowance in one script, plus whatever `more` appends (the ledger's bookkeeping of the same answer).
   */
  async settle(op: string, facts: AnswerFacts, more?: (batch: ChainableCommander) => void): Promise<void> {
    const k = this.keys(op);
    const now = Date.now();
    const touch = now - (this.statsTouched.get(op) ?? Number.NEGATIVE_INFINITY) >= STATS_TOUCH_AFTER_MS;
    const learned =
      facts.learned !== undefined && this.learnNeeded(op, facts.learned, facts.remaining) ? facts.learned : undefined;
    const args: (string | number)[] = [
      facts.outcome,
      facts.grant ?? '',
      touch ? STATS_TTL_S : 0,
      facts.releaseProbe === true ? '1' : '0',
      learned ? '1' : '0',
      learned?.limit ?? 0,
      learned?.windowMs ?? 0,
      learned?.mode ?? '',
      STATE_TTL_MS,
      facts.remaining ?? -1,
      learned ? randomUUID() : '',
      facts.daily ? '1' : '0',
      facts.daily?.limit ?? 0,
      facts.daily?.remaining ?? 0,
      facts.windowEndsInMs !== undefined && facts.windowEndsInMs >= 0 ? Math.ceil(facts.windowEndsInMs) : -1,
      this.member(op),
    ];
    const keys = [k.log, k.stats, k.state, k.probe, governorIndexKey(this.prefix)];
    if (more === undefined) await runLua(this.redis, ANSWER, keys, args);
    else {
      const batch = queueLua(this.redis.pipeline(), ANSWER, keys, args);
      more(batch);
      const failed = (await batch.exec())?.find(([err]) => err !== null)?.[0];
      if (failed) throw failed;
    }
    if (touch) this.statsTouched.set(op, now);
    if (learned) this.learnWritten(op, learned);
  }

  /** After a 429: every process of the account pauses `op` for `ms`. */
  async block(op: string, ms: number): Promise<void> {
    await runLua(this.redis, HOLD, [this.keys(op).state], ['blockedUntil', Math.round(ms)]);
  }

  /** The daily allowance is used up: `acquire` throws the remote's error in every process for `ms`. */
  async close(op: string, ms: number): Promise<void> {
    await runLua(this.redis, HOLD, [this.keys(op).state], ['closedUntil', Math.round(ms)]);
  }

  /** The daily allowance the remote last reported (shared by every process). */
  async daily(op: string): Promise<DailyAllowance | null> {
    const [limit, remaining] = await this.redis.hmget(this.keys(op).state, 'dailyLimit', 'dailyRemaining');
    if (limit === null || remaining === null) return null;
    return { limit: Number(limit), remaining: Number(remaining) };
  }

  /** Counts one answered (or unanswered) request by outcome class; its grant (from `acquire`) is stamped now. */
  async record(op: string, outcome: OutcomeClass, grant?: string): Promise<void> {
    await this.settle(op, { outcome, grant });
  }

  /**
   * Heartbeat of one run (or any other consumer) sharing `op`'s allowance: it counts as active for `ttlMs`.
   * Returns how many are active, itself included, so each can size for its share of the limit.
   */
  async heartbeat(op: string, member: string, ttlMs: number): Promise<number> {
    return Number(await runLua(this.redis, HEARTBEAT, [this.keys(op).runs], [member, Math.max(1, Math.round(ttlMs))]));
  }

  /** The member stops sharing `op`'s allowance (the others see it at their next heartbeat). */
  async leave(op: string, member: string): Promise<void> {
    await runLua(this.redis, HEARTBEAT, [this.keys(op).runs], [member, 0]);
  }

  async current(op: string): Promise<LearnedLimit | null> {
    const st = await this.redis.hmget(this.keys(op).state, 'limit', 'windowMs', 'mode');
    if (!st[0] || !st[1]) return null;
    return { limit: Number(st[0]), windowMs: Number(st[1]), mode: st[2] === 'headers' ? 'headers' : 'fallback' };
  }
}
