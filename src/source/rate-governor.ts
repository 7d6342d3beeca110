/**
 * Request spacing shared by every process of one account, per operation, with its state in Redis.
 *
 * The API counts requests in a fixed window whose phase we do not know. We keep a sliding log of grants (Redis
 * TIME, so all processes share one clock) and allow at most `limit` grants in any span of `window + guard`: any
 * fixed server window of length `window` then sees at most `limit` arrivals as long as a request reaches the
 * server within `guard` of its grant. In-flight requests are in the log from the moment they are granted.
 * Limit and window are learned from RateLimit-Policy / RateLimit-Limit; until the first answer only one probe
 * request runs; without headers the configured fallback (times `fallbackShare`) applies.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { sleep } from './abortable-sleep.js';
import { headerValue, type ResponseHeaders } from './response-headers.js';
import type { FallbackLimits, GovernorOptions, Operation } from './types.js';

const ACQUIRE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local st = redis.call('HMGET', KEYS[2], 'limit', 'windowMs', 'blockedUntil')
local blocked = tonumber(st[3]) or 0
if blocked > now then return {0, blocked - now} end
local limit = tonumber(st[1])
local windowMs = tonumber(st[2])
if not limit then
  if not redis.call('SET', KEYS[3], '1', 'NX', 'PX', ARGV[3]) then return {0, 20} end
  redis.call('ZADD', KEYS[1], now, ARGV[2])
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[4]) * 3)
  return {1, 0}
end
local guard = tonumber(ARGV[1])
if guard < 0 then guard = math.min(math.max(windowMs * 0.02, 100), 1000) end
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
`;

// ARGV: limit, windowMs, mode ('headers' | 'fallback'), ttlMs. A fallback never loosens a slower learned rate.
const LEARN = `
local limit = tonumber(ARGV[1])
local windowMs = tonumber(ARGV[2])
if ARGV[3] == 'fallback' then
  local st = redis.call('HMGET', KEYS[1], 'limit', 'windowMs', 'mode')
  local l, w = tonumber(st[1]), tonumber(st[2])
  if l and w and st[3] == 'headers' and l / w < limit / windowMs then limit, windowMs = l, w end
end
redis.call('HSET', KEYS[1], 'limit', limit, 'windowMs', windowMs, 'mode', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('DEL', KEYS[2])
return 1
`;

const BLOCK = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local until_ = now + tonumber(ARGV[1])
local cur = tonumber(redis.call('HGET', KEYS[1], 'blockedUntil')) or 0
if until_ > cur then redis.call('HSET', KEYS[1], 'blockedUntil', until_) end
return until_
`;

export interface LearnedLimit {
  limit: number;
  windowMs: number;
  mode: 'headers' | 'fallback';
}

const STATE_TTL_MS = 24 * 3600 * 1000;
const PROBE_TTL_MS = 10_000;

/** `RateLimit-Policy: 30;w=2` (and/or `RateLimit-Limit: 30`) -> limit + window; null when absent. */
export function parseRateLimitHeaders(headers: ResponseHeaders): { limit: number; windowMs: number | null } | null {
  const policy = headerValue(headers, 'ratelimit-policy');
  if (policy) {
    const [first] = policy.split(',');
    const match = /^\s*(\d+)\s*(?:;(.*))?$/.exec(first ?? '');
    if (match) {
      const w = /(?:^|;)\s*w\s*=\s*(\d+(?:\.\d+)?)/.exec(match[2] ?? '');
      return { limit: Number(match[1]), windowMs: w ? Math.round(Number(w[1]) * 1000) : null };
    }
  }
  const limit = Number(headerValue(headers, 'ratelimit-limit'));
  return Number.isFinite(limit) && limit > 0 ? { limit, windowMs: null } : null;
}

/** How long this process trusts its last write of an unchanged limit before writing it to Redis again. */
const REWRITE_AFTER_MS = 5_000;

export class RateGovernor {
  private readonly guardMs: number;
  private readonly fallbackShare: number;
  private readonly written = new Map<Operation, { key: string; at: number }>();

  constructor(
    private readonly redis: Redis,
    private readonly keyBase: string,
    private readonly fallback: FallbackLimits,
    options: GovernorOptions = {},
  ) {
    this.guardMs = options.guardMs ?? -1;
    this.fallbackShare = options.fallbackShare ?? 0.9;
  }

  private keys(op: Operation): [string, string, string] {
    return [`${this.keyBase}:rl:${op}:log`, `${this.keyBase}:rl:${op}:state`, `${this.keyBase}:rl:${op}:probe`];
  }

  /** Waits until a request of `op` may be sent now; the grant counts as in flight immediately. */
  async acquire(op: Operation, signal?: AbortSignal): Promise<void> {
    const [log, state, probe] = this.keys(op);
    for (;;) {
      const [granted, waitMs] = (await this.redis.eval(
        ACQUIRE, 3, log, state, probe, this.guardMs, randomUUID(), PROBE_TTL_MS, this.fallback.windowSeconds * 1000,
      )) as [number, number];
      if (granted === 1) return;
      // A little jitter so waiting processes do not wake in lockstep.
      await sleep(waitMs + Math.random() * 5, signal);
    }
  }

  /** Learns limit and window from a response's headers; falls back to the configured limits when absent. */
  async observe(op: Operation, headers: ResponseHeaders): Promise<LearnedLimit> {
    const parsed = parseRateLimitHeaders(headers);
    const learned: LearnedLimit = parsed
      ? { limit: parsed.limit, windowMs: parsed.windowMs ?? (await this.knownWindowMs(op)), mode: 'headers' }
      : {
          limit: Math.max(1, Math.floor(this.fallback[op] * this.fallbackShare)),
          windowMs: this.fallback.windowSeconds * 1000,
          mode: 'fallback',
        };
    // Saves a Redis round trip per request while the limit is unchanged.
    const key = `${learned.limit}/${learned.windowMs}/${learned.mode}`;
    const last = this.written.get(op);
    if (last?.key === key && Date.now() - last.at < REWRITE_AFTER_MS) return learned;
    const [, state, probe] = this.keys(op);
    await this.redis.eval(LEARN, 2, state, probe, learned.limit, learned.windowMs, learned.mode, STATE_TTL_MS);
    this.written.set(op, { key, at: Date.now() });
    return learned;
  }

  /** A request that got no answer frees the probe slot at once (its grant stays in the log). */
  async release(op: Operation): Promise<void> {
    const [, , probe] = this.keys(op);
    await this.redis.del(probe);
  }

  /** After a 429: every process of the account pauses this operation for `seconds`. */
  async block(op: Operation, seconds: number): Promise<void> {
    const [, state] = this.keys(op);
    await this.redis.eval(BLOCK, 1, state, Math.round(seconds * 1000));
  }

  async current(op: Operation): Promise<LearnedLimit | null> {
    const [, state] = this.keys(op);
    const st = await this.redis.hmget(state, 'limit', 'windowMs', 'mode');
    if (!st[0] || !st[1]) return null;
    return { limit: Number(st[0]), windowMs: Number(st[1]), mode: st[2] === 'headers' ? 'headers' : 'fallback' };
  }

  private async knownWindowMs(op: Operation): Promise<number> {
    return (await this.current(op))?.windowMs ?? this.fallback.windowSeconds * 1000;
  }
}
