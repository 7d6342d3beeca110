/**
 * Search tokens and credits of one account, in Redis so every process sees the same numbers.
 * Tokens: the balance the API reports in X-Rate-Results-*, minus in-flight reservations. Credits: counted here
 * (the API does not report them) per run, per UTC day and in total. A search reserves before it is sent and
 * settles after; reservations expire on their own if a process dies mid-request.
 */
import { randomUUID } from 'node:crypto';
import type { ChainableCommander, Redis } from 'ioredis';
import { defineLua, luaScript, queueLua, runLua } from '../shared/lua-script.js';
import { REDIS_NOW_LUA } from '../shared/redis-now.js';
import { headerValue, type ResponseHeaders } from './response-headers.js';

export interface TokenBalance {
  limit: number;
  remaining: number;
  /** Epoch ms of the next period reset. */
  resetAt: number;
  observedAt: number;
}

export interface CreditUsage {
  run: number;
  day: number;
  account: number;
  maxPerRun: number | null;
  maxPerDay: number | null;
}

/** Search tokens and credits of the account, shared by every process through Redis. */
export interface BudgetLedger {
  /** Last balance the API reported (X-Rate-Results-*), or null before the first search. */
  tokenBalance(): Promise<TokenBalance | null>;
  /** Tokens a new search may spend now: balance - reserve - in-flight reservations (Infinity when unknown). */
  spendableTokens(): Promise<number>;
  creditUsage(runId: string): Promise<CreditUsage>;
  /** Credits a run may still spend under maxPerRun and maxPerDay (Infinity when uncapped). */
  spendableCredits(runId: string): Promise<number>;
  /** The same, with the cap that binds (the smaller remaining of run and day; run on ties), null when uncapped. */
  creditHeadroom(runId: string): Promise<{ spendable: number; binding: 'credit_cap_run' | 'credit_cap_day' | null }>;
}

const EXPIRE_RESERVATIONS = new URL('./budget-expire-reservations.lua', import.meta.url);
const RESERVE_TOKENS = luaScript(
  'budgetReserveTokens',
  3,
  REDIS_NOW_LUA,
  EXPIRE_RESERVATIONS,
  new URL('./budget-reserve-tokens.lua', import.meta.url),
);
const OBSERVE_TOKENS = luaScript(
  'budgetObserveTokens',
  2,
  REDIS_NOW_LUA,
  new URL('./budget-observe-tokens.lua', import.meta.url),
);
const RESERVE_CREDITS = luaScript(
  'budgetReserveCredits',
  4,
  REDIS_NOW_LUA,
  EXPIRE_RESERVATIONS,
  new URL('./budget-reserve-credits.lua', import.meta.url),
);
const DEBIT_TOKENS = luaScript(
  'budgetDebitTokens',
  1,
  REDIS_NOW_LUA,
  new URL('./budget-debit-tokens.lua', import.meta.url),
);

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

export interface TokenReservation extends Reservation {
  /** The balance less the reserve and every reservation (at least 0), before this grant; -1 while it is unknown. */
  available: number;
  /** Tokens held by other reservations in flight. */
  held: number;
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
    // before any batch is made: the governor's batches carry this ledger's commands too
    defineLua(redis, RESERVE_TOKENS, OBSERVE_TOKENS, RESERVE_CREDITS, DEBIT_TOKENS);
  }

  /** OBSERVE_TOKENS's keys and arguments: the account index is written in the same script as the balance. */
  private observeCall(args: readonly (string | number)[]): [string[], (string | number)[]] {
    return [
      [this.tokensKey, this.index?.key ?? this.tokensKey],
      [...args, this.index?.account ?? ''],
    ];
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

  /**
   * Reserves up to `requested` tokens; `available` is -1 while the balance is unknown (then all are granted); `held`:
   * tokens other pages in flight hold (they may return fewer records than they reserved).
   */
  async reserveTokens(requested: number): Promise<TokenReservation> {
    const id = randomUUID();
    const [granted, available, held] = await runLua<[number, number, number]>(
      this.redis,
      RESERVE_TOKENS,
      [...this.tokenResv, this.tokensKey],
      [requested, this.tokenReserve, id, RESERVATION_TTL_MS],
    );
    return { id, granted, available, held };
  }

  /** `reserveTokens` appended to a batch (the governor's grant, one round trip); `read` takes its reply. */
  reserveTokensInto(batch: ChainableCommander, requested: number): { read(reply: unknown): TokenReservation } {
    const id = randomUUID();
    queueLua(
      batch,
      RESERVE_TOKENS,
      [...this.tokenResv, this.tokensKey],
      [requested, this.tokenReserve, id, RESERVATION_TTL_MS],
    );
    return {
      read: (reply) => {
        const [granted, available, held] = reply as [number, number, number];
        return { id, granted, available, held };
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
    if (args) await runLua(this.redis, OBSERVE_TOKENS, ...this.observeCall(args));
  }

  /** `observeTokens` appended to a batch (the answer's other bookkeeping), in the same round trip. */
  observeTokensInto(batch: ChainableCommander, headers: ResponseHeaders): void {
    const args = balanceOf(headers);
    if (args) queueLua(batch, OBSERVE_TOKENS, ...this.observeCall(args));
  }

  /** Lowers the known balance by `n` tokens a search may have been charged without an answer telling us. */
  async debitTokens(n: number): Promise<void> {
    if (n > 0) await runLua(this.redis, DEBIT_TOKENS, [this.tokensKey], [n]);
  }

  async spendableTokens(): Promise<number> {
    const { id, available } = await this.reserveTokens(0);
    await this.releaseTokens(id);
    return available < 0 ? Number.POSITIVE_INFINITY : available;
  }

  /** Reserves up to `requested` credits for `runId` under the run and day caps. */
  async reserveCredits(runId: string, requested: number): Promise<CreditReservation> {
    const id = randomUUID();
    const [granted, binding, held] = await runLua<[number, number, number]>(
      this.redis,
      RESERVE_CREDITS,
      [...this.creditResv, this.runKey(runId), this.dayKey()],
      [requested, this.caps.maxPerRun ?? -1, this.caps.maxPerDay ?? -1, id, RESERVATION_TTL_MS, runId],
    );
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
    const [run, day, account] = await this.redis.mget(
      this.runKey(runId),
      this.dayKey(),
      `${this.keyBase}:credits:total`,
    );
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
    if (this.caps.maxPerRun === undefined && this.caps.maxPerDay === undefined)
      return { spendable: Number.POSITIVE_INFINITY, binding: null };
    const { id, granted, binding } = await this.reserveCredits(runId, Number.MAX_SAFE_INTEGER);
    await this.settleCredits(runId, id, 0);
    return { spendable: granted, binding };
  }
}
