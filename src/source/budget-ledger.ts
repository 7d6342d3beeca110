/**
 * Search tokens and credits of one account, in Redis so every process sees the same numbers.
 * Tokens: the balance the API reports in X-Rate-Results-*, minus in-flight reservations. Credits: counted here
 * (the API does not report them) per run, per UTC day and in total. A search reserves before it is sent and
 * settles after; reservations expire on their own if a process dies mid-request.
 */
import { randomUUID } from 'node:crypto';
import type { ChainableCommander, Redis } from 'ioredis';
import { withRedisNow } from '../shared/redis-now.js';
import { headerValue, type ResponseHeaders } from './response-headers.js';
import type { BudgetLedger, CreditUsage, TokenBalance } from './types.js';

const CLEAN = withRedisNow(`
local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now)
for _, id in ipairs(expired) do redis.call('HDEL', KEYS[1], id); redis.call('ZREM', KEYS[2], id) end
`);

// KEYS: resv hash, resv expiry zset, tokens hash. ARGV: requested, reserve, id, ttlMs.
// Returns {granted, available before the grant (-1 when the balance is unknown)}.
const RESERVE_TOKENS = `${CLEAN}
local st = redis.call('HMGET', KEYS[3], 'remaining', 'resetAt')
local remaining, resetAt = tonumber(st[1]), tonumber(st[2])
local requested = tonumber(ARGV[1])
if not remaining or (resetAt and now >= resetAt) then return {requested, -1} end
local reserved = 0
for _, v in ipairs(redis.call('HVALS', KEYS[1])) do reserved = reserved + tonumber(v) end
local avail = remaining - tonumber(ARGV[2]) - reserved
local grant = math.min(requested, math.max(avail, 0))
if grant > 0 then
  redis.call('HSET', KEYS[1], ARGV[3], grant)
  redis.call('ZADD', KEYS[2], now + tonumber(ARGV[4]), ARGV[3])
end
return {grant, avail}
`;

// KEYS: tokens hash, [account index]. ARGV: limit, remaining, resetSeconds, [account]. Within one period the balance
// only goes down, so an answer that overtook a later one never raises it.
const OBSERVE_TOKENS = withRedisNow(`
if KEYS[2] then redis.call('SADD', KEYS[2], ARGV[4]) end
local st = redis.call('HMGET', KEYS[1], 'remaining', 'resetAt')
local remaining = tonumber(ARGV[2])
local resetAt = now + tonumber(ARGV[3]) * 1000
local oldRemaining, oldResetAt = tonumber(st[1]), tonumber(st[2])
if oldRemaining and oldResetAt and now < oldResetAt and oldRemaining < remaining then
  remaining = oldRemaining
  resetAt = oldResetAt
end
redis.call('HSET', KEYS[1], 'limit', ARGV[1], 'remaining', remaining, 'resetAt', resetAt, 'observedAt', now)
return remaining
`);

// KEYS: resv hash, resv expiry zset, run used, day used. ARGV: requested, maxRun (-1 none), maxDay, id, ttlMs, runId.
const RESERVE_CREDITS = `${CLEAN}
local runUsed = tonumber(redis.call('GET', KEYS[3])) or 0
local dayUsed = tonumber(redis.call('GET', KEYS[4])) or 0
local runResv, dayResv = 0, 0
for _, v in ipairs(redis.call('HVALS', KEYS[1])) do
  local sep = string.find(v, '|', 1, true)
  local amount = tonumber(string.sub(v, 1, sep - 1))
  dayResv = dayResv + amount
  if string.sub(v, sep + 1) == ARGV[6] then runResv = runResv + amount end
end
local avail = tonumber(ARGV[1])
if tonumber(ARGV[2]) >= 0 then avail = math.min(avail, tonumber(ARGV[2]) - runUsed - runResv) end
if tonumber(ARGV[3]) >= 0 then avail = math.min(avail, tonumber(ARGV[3]) - dayUsed - dayResv) end
local grant = math.max(avail, 0)
if grant > 0 then
  redis.call('HSET', KEYS[1], ARGV[4], grant .. '|' .. ARGV[6])
  redis.call('ZADD', KEYS[2], now + tonumber(ARGV[5]), ARGV[4])
end
-- The cap that binds: the smaller remaining of run and day (in-flight reservations included); run wins ties.
local binding = 0
local runLeft, dayLeft = tonumber(ARGV[2]) - runUsed - runResv, tonumber(ARGV[3]) - dayUsed - dayResv
if tonumber(ARGV[2]) >= 0 and (tonumber(ARGV[3]) < 0 or runLeft <= dayLeft) then binding = 1
elseif tonumber(ARGV[3]) >= 0 then binding = 2 end
-- What in-flight pages hold of the binding cap: they may come back with fewer records and free some of it.
local held = 0
if binding == 1 then held = runResv elseif binding == 2 then held = dayResv end
return {grant, binding, held}
`;

// KEYS: tokens hash. ARGV: n. A search that got no answer may have been charged: lower the known balance by the
// worst case (never raised back within the period, as OBSERVE_TOKENS only lowers it).
const DEBIT_TOKENS = withRedisNow(`
local st = redis.call('HMGET', KEYS[1], 'remaining', 'resetAt')
local remaining, resetAt = tonumber(st[1]), tonumber(st[2])
if not remaining or (resetAt and now >= resetAt) then return -1 end
remaining = math.max(0, remaining - tonumber(ARGV[1]))
redis.call('HSET', KEYS[1], 'remaining', remaining)
return remaining
`);

// Only frees the reservations of a process that died mid-request; longer than one request with all its retries
// (5 × 60 s Retry-After plus backoffs and timeouts), so a live reservation never expires under a cap.
const RESERVATION_TTL_MS = 15 * 60 * 1000;
const RUN_TTL_S = 14 * 24 * 3600;
const DAY_TTL_S = 3 * 24 * 3600;

/** The SET of accounts with a budget under `keyPrefix` (read by /metrics and the alerts instead of a SCAN). */
export const budgetIndexKey = (keyPrefix: string): string => `${keyPrefix}:index:budget-accounts`;

/** A ledger at `<keyPrefix>:source:<account>` (as createSourceClient places it) keeps the index of accounts. */
function indexOf(keyBase: string): { key: string; account: string } | undefined {
  const m = /^(.*):source:([^:]+)$/.exec(keyBase);
  return m?.[1] && m[2] ? { key: budgetIndexKey(m[1]), account: m[2] } : undefined;
}

function num(headers: ResponseHeaders, name: string): number | undefined {
  const raw = headerValue(headers, name);
  const n = Number(raw);
  return raw === undefined || !Number.isFinite(n) ? undefined : n;
}

/** OBSERVE_TOKENS arguments from a search answer's X-Rate-Results-* headers; undefined without a balance. */
function balanceOf(headers: ResponseHeaders): [number, number, number] | undefined {
  const remaining = num(headers, 'x-rate-results-limit-remaining');
  if (remaining === undefined) return undefined;
  return [num(headers, 'x-rate-results-limit') ?? -1, remaining, num(headers, 'x-rate-results-limit-reset') ?? 0];
}

export interface Reservation {
  id: string;
  granted: number;
}

export interface CreditReservation extends Reservation {
  /** The cap that limits the grant (the smaller remaining of run and day, run on ties), or null without caps. */
  binding: 'credit_cap_run' | 'credit_cap_day' | null;
  /** Credits of the binding cap held by reservations in flight (0 without caps). */
  held: number;
}

export class RedisBudgetLedger implements BudgetLedger {
  private readonly tokensKey: string;
  private readonly tokenResv: [string, string];
  private readonly creditResv: [string, string];
  private readonly index: { key: string; account: string } | undefined;

  constructor(
    private readonly redis: Redis,
    private readonly keyBase: string,
    private readonly tokenReserve: number,
    private readonly caps: { maxPerRun?: number; maxPerDay?: number },
  ) {
    this.tokensKey = `${keyBase}:tokens`;
    this.tokenResv = [`${keyBase}:tokens:resv`, `${keyBase}:tokens:resv:exp`];
    this.creditResv = [`${keyBase}:credits:resv`, `${keyBase}:credits:resv:exp`];
    this.index = indexOf(keyBase);
  }

  /** OBSERVE_TOKENS's keys and arguments: the index is written in the same script as the balance. */
  private observeCall(args: [number, number, number]): [number, ...(string | number)[]] {
    return this.index ? [2, this.tokensKey, this.index.key, ...args, this.index.account] : [1, this.tokensKey, ...args];
  }

  get reserve(): number {
    return this.tokenReserve;
  }

  private runKey(runId: string): string {
    return `${this.keyBase}:credits:run:${runId}`;
  }

  private dayKey(at = new Date()): string {
    return `${this.keyBase}:credits:day:${at.toISOString().slice(0, 10)}`;
  }

  async tokenBalance(): Promise<TokenBalance | null> {
    const st = await this.redis.hmget(this.tokensKey, 'limit', 'remaining', 'resetAt', 'observedAt');
    if (st[1] === null) return null;
    return { limit: Number(st[0]), remaining: Number(st[1]), resetAt: Number(st[2]), observedAt: Number(st[3]) };
  }

  /** Reserves up to `requested` tokens; `available` is -1 while the balance is unknown (then all are granted). */
  async reserveTokens(requested: number): Promise<Reservation & { available: number }> {
    const id = randomUUID();
    const [granted, available] = (await this.redis.eval(
      RESERVE_TOKENS, 3, ...this.tokenResv, this.tokensKey, requested, this.tokenReserve, id, RESERVATION_TTL_MS,
    )) as [number, number];
    return { id, granted, available };
  }

  /** `reserveTokens` appended to a batch (the governor's grant, one round trip); `read` takes its reply. */
  reserveTokensInto(batch: ChainableCommander, requested: number): { read(reply: unknown): Reservation & { available: number } } {
    const id = randomUUID();
    batch.eval(RESERVE_TOKENS, 3, ...this.tokenResv, this.tokensKey, requested, this.tokenReserve, id, RESERVATION_TTL_MS);
    return {
      read: (reply) => {
        const [granted, available] = reply as [number, number];
        return { id, granted, available };
      },
    };
  }

  async releaseTokens(id: string): Promise<void> {
    await this.redis.multi().hdel(this.tokenResv[0], id).zrem(this.tokenResv[1], id).exec();
  }

  /** `releaseTokens` appended to a batch (the answer's other bookkeeping), in the same round trip. */
  releaseTokensInto(batch: ChainableCommander, id: string): void {
    batch.hdel(this.tokenResv[0], id).zrem(this.tokenResv[1], id);
  }

  /** Records the balance a search (or 402) answer reported. */
  async observeTokens(headers: ResponseHeaders): Promise<void> {
    const args = balanceOf(headers);
    if (args) await this.redis.eval(OBSERVE_TOKENS, ...this.observeCall(args));
  }

  /** `observeTokens` appended to a batch (the answer's other bookkeeping), in the same round trip. */
  observeTokensInto(batch: ChainableCommander, headers: ResponseHeaders): void {
    const args = balanceOf(headers);
    if (args) batch.eval(OBSERVE_TOKENS, ...this.observeCall(args));
  }

  /** Lowers the known balance by `n` tokens a search may have been charged without an answer telling us. */
  async debitTokens(n: number): Promise<void> {
    if (n > 0) await this.redis.eval(DEBIT_TOKENS, 1, this.tokensKey, n);
  }

  async spendableTokens(): Promise<number> {
    const { id, available } = await this.reserveTokens(0);
    await this.releaseTokens(id);
    return available < 0 ? Number.POSITIVE_INFINITY : Math.max(0, available);
  }

  /** Reserves up to `requested` credits for `runId` under the run and day caps. */
  async reserveCredits(runId: string, requested: number): Promise<CreditReservation> {
    const id = randomUUID();
    const [granted, binding, held] = (await this.redis.eval(
      RESERVE_CREDITS, 4, ...this.creditResv, this.runKey(runId), this.dayKey(), requested,
      this.caps.maxPerRun ?? -1, this.caps.maxPerDay ?? -1, id, RESERVATION_TTL_MS, runId,
    )) as [number, number, number];
    return { id, granted, binding: binding === 1 ? 'credit_cap_run' : binding === 2 ? 'credit_cap_day' : null, held };
  }

  /** Books `spent` credits and drops the reservation. */
  async settleCredits(runId: string, reservationId: string, spent: number): Promise<void> {
    const tx = this.redis.multi().hdel(this.creditResv[0], reservationId).zrem(this.creditResv[1], reservationId);
    if (spent > 0) {
      tx.incrby(this.runKey(runId), spent).expire(this.runKey(runId), RUN_TTL_S);
      tx.incrby(this.dayKey(), spent).expire(this.dayKey(), DAY_TTL_S);
      tx.incrby(`${this.keyBase}:credits:total`, spent);
      if (this.index) tx.sadd(this.index.key, this.index.account);
    }
    await tx.exec();
  }

  async creditUsage(runId: string): Promise<CreditUsage> {
    const [run, day, account] = await this.redis.mget(this.runKey(runId), this.dayKey(), `${this.keyBase}:credits:total`);
    return {
      run: Number(run ?? 0),
      day: Number(day ?? 0),
      account: Number(account ?? 0),
      maxPerRun: this.caps.maxPerRun ?? null,
      maxPerDay: this.caps.maxPerDay ?? null,
    };
  }

  async spendableCredits(runId: string): Promise<number> {
    return (await this.creditHeadroom(runId)).spendable;
  }

  /** Credits `runId` may still spend and the cap that binds them (the plan reports which one stops the run). */
  async creditHeadroom(runId: string): Promise<{ spendable: number; binding: CreditReservation['binding'] }> {
    if (this.caps.maxPerRun === undefined && this.caps.maxPerDay === undefined) return { spendable: Number.POSITIVE_INFINITY, binding: null };
    const { id, granted, binding } = await this.reserveCredits(runId, Number.MAX_SAFE_INTEGER);
    await this.settleCredits(runId, id, 0);
    return { spendable: granted, binding };
  }
}
