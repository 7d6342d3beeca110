/** Search-token budget per account: admitted while any balance remains, charged after the page is built. */
import type { BudgetMode } from './types.js';

export interface BudgetState {
  allotment: number;
  periodSeconds: number;
  remaining: number;
  resetAt: number;
}

export type BudgetCheck =
  | { ok: true }
  | { ok: false; reason: 'exhausted' | BudgetMode; retryAfter: number; headers: Record<string, string> | undefined };

export class BudgetLedger {
  private readonly states = new Map<string, BudgetState>();

  constructor(private readonly now: () => number = Date.now) {}

  open(accountId: string, allotment: number, periodSeconds: number): void {
    this.states.set(accountId, {
      allotment,
      periodSeconds,
      remaining: allotment,
      resetAt: this.now() + periodSeconds * 1000,
    });
  }

  private state(accountId: string): BudgetState {
    const s = this.states.get(accountId);
    if (!s) throw new Error(`unknown account ${accountId}`);
    return s;
  }

  /** In 'normal' mode a period that ended is renewed; 'stale_reset' models a renewal that did not happen. */
  private roll(s: BudgetState, mode: BudgetMode): void {
    if (mode !== 'normal') return;
    const now = this.now();
    if (now < s.resetAt) return;
    const periodMs = s.periodSeconds * 1000;
    s.resetAt += Math.ceil((now - s.resetAt + 1) / periodMs) * periodMs;
    s.remaining = s.allotment;
  }

  headers(accountId: string, mode: BudgetMode = 'normal'): Record<string, string> {
    const s = this.state(accountId);
    const stale = mode === 'stale_reset';
    return {
      'X-Rate-Results-Limit': String(s.allotment),
      'X-Rate-Results-Limit-Remaining': String(stale ? 0 : Math.max(0, s.remaining)),
      'X-Rate-Results-Limit-Reset': String(stale ? 0 : Math.max(0, Math.ceil((s.resetAt - this.now()) / 1000))),
    };
  }

  check(accountId: string, mode: BudgetMode): BudgetCheck {
    const s = this.state(accountId);
    if (mode === 'store_unavailable') return { ok: false, reason: mode, retryAfter: 1, headers: undefined };
    if (mode === 'stale_reset')
      return { ok: false, reason: mode, retryAfter: 0, headers: this.headers(accountId, mode) };
    this.roll(s, mode);
    if (s.remaining > 0) return { ok: true };
    return {
      ok: false,
      reason: 'exhausted',
      retryAfter: Math.max(1, Math.ceil((s.resetAt - this.now()) / 1000)),
      headers: this.headers(accountId),
    };
  }

  charge(accountId: string, records: number): void {
    const s = this.state(accountId);
    s.remaining = Math.max(0, s.remaining - records);
  }

  set(accountId: string, remaining: number, resetInSeconds?: number): void {
    const s = this.state(accountId);
    s.remaining = remaining;
    if (resetInSeconds !== undefined) s.resetAt = this.now() + resetInSeconds * 1000;
  }
}
