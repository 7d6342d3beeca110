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
 * total time waited in `acquire`, read with `listGovernorSnapshots`. Account labels are hashes or portal ids,
 * never secrets.
 */
import { randomUUID } from 'node:crypto';
import type { ChainableCommander, Redis } from 'ioredis';
import { sleep } from './abortable-sleep.js';
import { pruneKeyIndex, readKeyIndex } from './key-index.js';
import { withRedisNow } from './redis-now.js';
import { scanKeys } from './redis.js';

// KEYS: log, state, probe. ARGV: guardMs (-1: 0.5% of the window, 25..250 ms), grant id, probe ttl ms,
// default window ms, until-learned ('probe' | 'open' | 'limit'), fallback limit, fallback window ms.
// Returns {1, 0} granted, {0, waitMs} wait, {2, closedForMs} closed.
const ACQUIRE = withRedisNow(`
local st = redis.call('HMGET', KEYS[2], 'limit', 'windowMs', 'blockedUntil', 'closedUntil')
local closed = tonumber(st[4]) or 0
if closed > now then return {2, closed - now} end
local blocked = tonumber(st[3]) or 0
if blocked > now then return {0, blocked - now} end
local limit = tonumber(st[1])
local windowMs = tonumber(st[2])
if not limit then
  if ARGV[5] == 'open' then return {1, 0} end
  if ARGV[5] == 'probe' then
    if not redis.call('SET', KEYS[3], '1', 'NX', 'PX', ARGV[3]) then return {0, 20} end
    redis.call('ZADD', KEYS[1], now, ARGV[2])
    redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[4]) * 3)
    return {1, 0}
  end
  limit = tonumber(ARGV[6])
  windowMs = tonumber(ARGV[7])
end
local guard = tonumber(ARGV[1])
if guard < 0 then guard = math.min(math.max(windowMs * 0.005, 25), 250) end
local span = windowMs + guard
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - span)
local n = redis.call('ZCARD', KEYS[1])
if n < limit then
  redis.call('ZADD', KEYS[1], now, ARGV[2])
  redis.call('PEXPIRE', KEYS[1], math.ceil(span * 2))
  return {1, 0}
end
local entry = redis.call('ZRANGE', KEYS[1], n - limit, n - limit, 'WITHSCORES')
return {0, math.max(1, tonumber(entry[2]) + span - now + 1)}
`);

// A learned (or fallback) limit: (state, probe, log, limit, windowMs, mode, ttlMs, remaining (-1: unknown), id).
// A fallback never loosens a slower learned rate. `remaining` below what our log explains means other clients
// share the allowance: their share is booked as used now.
const LEARN_FN = `
local function learn(state, probe, log, limit, windowMs, mode, ttlMs, remaining, id)
  if mode == 'fallback' then
    local st = redis.call('HMGET', state, 'limit', 'windowMs', 'mode')
    local l, w = tonumber(st[1]), tonumber(st[2])
    if l and w and st[3] == 'headers' and l / w < limit / windowMs then limit, windowMs = l, w end
  end
  redis.call('HSET', state, 'limit', limit, 'windowMs', windowMs, 'mode', mode)
  redis.call('PEXPIRE', state, ttlMs)
  redis.call('DEL', probe)
  if remaining >= 0 then
    local n = redis.call('ZCOUNT', log, now - windowMs, '+inf')
    local missing = math.min(limit - remaining - n, limit)
    for i = 1, missing do redis.call('ZADD', log, now, id .. ':' .. i) end
    if missing > 0 then redis.call('PEXPIRE', log, windowMs * 3) end
  end
end
`;

// KEYS: state, probe, log, index. ARGV: limit, windowMs, mode, ttlMs, remaining (-1: unknown), id, index member.
const LEARN = withRedisNow(`${LEARN_FN}
redis.call('SADD', KEYS[4], ARGV[7])
learn(KEYS[1], KEYS[2], KEYS[3], tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3], ARGV[4], tonumber(ARGV[5]), ARGV[6])
return 1
`);

// Everything one answer (or a request without one) teaches, in one call: the outcome counted, the grant stamped
// again (see the header), the probe slot freed, the limit learned, the daily allowance stored.
// KEYS: log, stats, state, probe, index. ARGV: outcome, grant ('' none), stats ttl s (0: leave; else the index is
// written too), free probe ('1'), learn ('1') + limit, windowMs, mode, state ttl ms, remaining (-1), id, daily ('1') +
// daily limit, daily remaining, window ends in ms (-1: unknown), index member.
// A grant leaves the log at its score + window + guard: stamped `now`, one span from now; stamped
// `now - (window - ends)`, at the end of the server's window that counted it plus the guard, when that is sooner.
const SETTLE = withRedisNow(`${LEARN_FN}
redis.call('HINCRBY', KEYS[2], ARGV[1], 1)
if ARGV[3] ~= '0' then
  redis.call('EXPIRE', KEYS[2], ARGV[3])
  redis.call('SADD', KEYS[5], ARGV[16])
end
if ARGV[2] ~= '' then redis.call('ZADD', KEYS[1], 'XX', now, ARGV[2]) end
if ARGV[4] == '1' then redis.call('DEL', KEYS[4]) end
if ARGV[5] == '1' then
  learn(KEYS[3], KEYS[4], KEYS[1], tonumber(ARGV[6]), tonumber(ARGV[7]), ARGV[8], ARGV[9], tonumber(ARGV[10]), ARGV[11])
end
local ends = tonumber(ARGV[15])
if ARGV[2] ~= '' and ends >= 0 then
  local windowMs = tonumber(redis.call('HGET', KEYS[3], 'windowMs'))
  if windowMs and ends < windowMs then redis.call('ZADD', KEYS[1], 'XX', now - (windowMs - ends), ARGV[2]) end
end
if ARGV[12] == '1' then
  redis.call('HSET', KEYS[3], 'dailyLimit', ARGV[13], 'dailyRemaining', ARGV[14])
  redis.call('PEXPIRE', KEYS[3], ARGV[9])
end
return 1
`);

// KEYS: state. ARGV: field ('blockedUntil' | 'closedUntil'), ms. Only ever extends.
const HOLD = withRedisNow(`
local until_ = now + tonumber(ARGV[2])
local cur = tonumber(redis.call('HGET', KEYS[1], ARGV[1])) or 0
if until_ > cur then redis.call('HSET', KEYS[1], ARGV[1], until_) end
return until_
`);

// KEYS: runs. ARGV: member, ttlMs (0: leave). Members are scored by when their heartbeat expires; returns how many
// are alive (this one included while it beats).
const ACTIVE = withRedisNow(`
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local ttl = tonumber(ARGV[2])
if ttl > 0 then
  redis.call('ZADD', KEYS[1], now + ttl, ARGV[1])
  redis.call('PEXPIRE', KEYS[1], ttl * 2)
else
  redis.call('ZREM', KEYS[1], ARGV[1])
end
return redis.call('ZCARD', KEYS[1])
`);

export type OutcomeClass = '2xx' | '4xx' | '5xx' | '429' | 'network';
const OUTCOMES: readonly OutcomeClass[] = ['2xx', '4xx', '5xx', '429', 'network'];

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

export interface GovernorSnapshot {
  remote: string;
  account: string;
  operation: string;
  limit: number | null;
  windowMs: number | null;
  mode: 'headers' | 'fallback' | null;
  requests: Record<'2xx' | '4xx' | '5xx' | '429' | 'network', number>;
  waitedSeconds: number;
}

const STATE_TTL_MS = 24 * 3600 * 1000;
const STATS_TTL_S = 7 * 24 * 3600;
const PROBE_TTL_MS = 10_000;
/** How long this process trusts its last write of an unchanged limit before writing it to Redis again. */
const REWRITE_AFTER_MS = 5_000;
/** The stats key's expiry is renewed at most this often per operation (it lasts STATS_TTL_S). */
const STATS_TOUCH_AFTER_MS = 60_000;

const limitKey = (learned: LearnedLimit): string => `${learned.limit}/${learned.windowMs}/${learned.mode}`;

/** The SET of `remote:account:operation` with governor state under `prefix` (read by /metrics instead of a SCAN). */
export const governorIndexKey = (prefix: string): string => `${prefix}:index:governors`;

/** Keys of one (remote, account, operation) under `prefix`. Labels never contain ':'. */
function keysOf(prefix: string, remote: string, account: string, operation: string): { log: string; state: string; probe: string; stats: string; runs: string } {
  const base = `${prefix}:gov:${remote}:${account}:${operation}`;
  return { log: `${base}:log`, state: `${base}:state`, probe: `${base}:probe`, stats: `${base}:stats`, runs: `${base}:runs` };
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
    for (const label of [remote, account]) if (label.includes(':')) throw new Error(`governor label ${label} must not contain ':'`);
  }

  private keys(op: string): ReturnType<typeof keysOf> {
    return keysOf(this.prefix, this.remote, this.account, op);
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
    const args = [
      ACQUIRE, 3, k.log, k.state, k.probe, this.settings.guardMs ?? -1, grant, PROBE_TTL_MS, defaultWindowMs,
      mode, fixed?.limit ?? 0, fixed?.windowMs ?? 0,
    ] as const;
    let waitedMs = 0;
    let first = alongside;
    for (;;) {
      let answer: [number, number];
      if (first === undefined) answer = (await this.redis.eval(...args)) as [number, number];
      else {
        // The caller's commands go first, in the same round trip as the grant.
        const batch = this.redis.pipeline();
        first.append(batch);
        const replies = (await batch.eval(...args).exec()) ?? [];
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
      if (granted === 2) throw (this.settings.closedError ?? ((o) => new Error(`${this.remote} ${o} is closed`)))(op, ms);
      // A little jitter so waiting processes do not wake in lockstep.
      const wait = ms + Math.random() * 5;
      await sleep(wait, signal);
      waitedMs += wait;
    }
    if (waitedMs > 0) {
      await this.redis.pipeline().hincrby(k.stats, 'waitedMs', Math.round(waitedMs)).expire(k.stats, STATS_TTL_S)
        .sadd(governorIndexKey(this.prefix), this.member(op)).exec();
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
    await this.redis.eval(
      LEARN, 4, k.state, k.probe, k.log, governorIndexKey(this.prefix), learned.limit, learned.windowMs, learned.mode, STATE_TTL_MS,
      remaining ?? -1, randomUUID(), this.member(op),
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
   * Writes what one answer taught in ONE Redis round trip: outcome count, restamp, probe release, `learn` and the
   * daily allowance in one script, plus whatever `more` appends (the budget ledger's bookkeeping of the same answer),
   * in one pipeline.
   */
  async settle(op: string, facts: AnswerFacts, more?: (batch: ChainableCommander) => void): Promise<void> {
    const k = this.keys(op);
    const now = Date.now();
    const touch = now - (this.statsTouched.get(op) ?? Number.NEGATIVE_INFINITY) >= STATS_TOUCH_AFTER_MS;
    const learned = facts.learned !== undefined && this.learnNeeded(op, facts.learned, facts.remaining) ? facts.learned : undefined;
    const args: (string | number)[] = [
      facts.outcome, facts.grant ?? '', touch ? STATS_TTL_S : 0, facts.releaseProbe === true ? '1' : '0',
      learned ? '1' : '0', learned?.limit ?? 0, learned?.windowMs ?? 0, learned?.mode ?? '', STATE_TTL_MS, facts.remaining ?? -1,
      learned ? randomUUID() : '', facts.daily ? '1' : '0', facts.daily?.limit ?? 0, facts.daily?.remaining ?? 0,
      facts.windowEndsInMs !== undefined && facts.windowEndsInMs >= 0 ? Math.ceil(facts.windowEndsInMs) : -1, this.member(op),
    ];
    const index = governorIndexKey(this.prefix);
    if (more === undefined) await this.redis.eval(SETTLE, 5, k.log, k.stats, k.state, k.probe, index, ...args);
    else {
      const batch = this.redis.pipeline().eval(SETTLE, 5, k.log, k.stats, k.state, k.probe, index, ...args);
      more(batch);
      const failed = (await batch.exec())?.find(([err]) => err !== null)?.[0];
      if (failed) throw failed;
    }
    if (touch) this.statsTouched.set(op, now);
    if (learned) this.learnWritten(op, learned);
  }

  /** After a 429: every process of the account pauses `op` for `ms`. */
  async block(op: string, ms: number): Promise<void> {
    await this.redis.eval(HOLD, 1, this.keys(op).state, 'blockedUntil', Math.round(ms));
  }

  /** The daily allowance is used up: `acquire` throws the remote's error in every process for `ms`. */
  async close(op: string, ms: number): Promise<void> {
    await this.redis.eval(HOLD, 1, this.keys(op).state, 'closedUntil', Math.round(ms));
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
    return Number(await this.redis.eval(ACTIVE, 1, this.keys(op).runs, member, Math.max(1, Math.round(ttlMs))));
  }

  /** The member stops sharing `op`'s allowance (the others see it at their next heartbeat). */
  async leave(op: string, member: string): Promise<void> {
    await this.redis.eval(ACTIVE, 1, this.keys(op).runs, member, 0);
  }

  async current(op: string): Promise<LearnedLimit | null> {
    const st = await this.redis.hmget(this.keys(op).state, 'limit', 'windowMs', 'mode');
    if (!st[0] || !st[1]) return null;
    return { limit: Number(st[0]), windowMs: Number(st[1]), mode: st[2] === 'headers' ? 'headers' : 'fallback' };
  }
}

/** Every governed (remote, account, operation) under `prefix`, with what it learned and its request counts. */
export async function listGovernorSnapshots(redis: Redis, prefix: string): Promise<GovernorSnapshot[]> {
  const base = `${prefix}:gov:`;
  const index = governorIndexKey(prefix);
  const members = await readKeyIndex(redis, index, async () => {
    const found = new Set<string>();
    for (const key of await scanKeys(redis, `${base.replace(/[*?[\]\\]/g, '\\$&')}*`)) {
      const m = /^([^:]+):([^:]+):([^:]+):(?:state|stats)$/.exec(key.slice(base.length));
      if (m) found.add(`${m[1]}:${m[2]}:${m[3]}`);
    }
    return [...found];
  });
  const snapshots: GovernorSnapshot[] = [];
  for (const id of members.filter((m) => /^[^:]+:[^:]+:[^:]+$/.test(m))) {
    const [remote = '', account = '', operation = ''] = id.split(':');
    const k = keysOf(prefix, remote, account, operation);
    const [st, stats] = await Promise.all([redis.hmget(k.state, 'limit', 'windowMs', 'mode'), redis.hgetall(k.stats)]);
    const empty = st.every((v) => v === null) && Object.keys(stats).length === 0;
    if (empty && (await pruneKeyIndex(redis, index, id, [k.state, k.stats]))) continue;
    const requests = Object.fromEntries(OUTCOMES.map((o) => [o, Number(stats[o] ?? 0)])) as GovernorSnapshot['requests'];
    snapshots.push({
      remote, account, operation,
      limit: st[0] ? Number(st[0]) : null,
      windowMs: st[1] ? Number(st[1]) : null,
      mode: st[2] === 'headers' || st[2] === 'fallback' ? st[2] : null,
      requests,
      waitedSeconds: Number(stats.waitedMs ?? 0) / 1000,
    });
  }
  return snapshots;
}
