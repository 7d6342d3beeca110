/** Run-time fault switches of one emulator instance and the decisions they drive. */
import { createPrng } from './hash.js';
import type { BentPagesFault, ChurnLog, EmulatorFaults, EmulatorFaultsInit, EmulatorRoute } from './types.js';

const UNFAULTED_ROUTES: EmulatorRoute[] = ['health', 'token'];

function defaults(): Required<EmulatorFaultsInit> {
  return {
    latency: null,
    serverErrors: null,
    force429: 0,
    forceInvalidCursor: 0,
    refuseResentCursor: false,
    offsetOrderDiffers: false,
    keepJourneyLimit: true,
    expireTokensAfter: null,
    churn: null,
    limiterDown: false,
    healthDown: false,
    budgetMode: {},
    bentPages: null,
  };
}

export class FaultState implements EmulatorFaults {
  private state = defaults();
  private readonly log: ChurnLog = { inserted: [], removed: [] };
  private readonly random: () => number;
  private errorFlip = false;

  constructor(
    seed: number,
    private readonly onExpireTokens: () => void,
  ) {
    this.random = createPrng(seed ^ 0x5eed);
  }

  set(faults: EmulatorFaultsInit): void {
    const next = { ...this.state };
    for (const [key, value] of Object.entries(faults) as [keyof EmulatorFaultsInit, unknown][]) {
      if (value === undefined) continue;
      if (key === 'budgetMode') next.budgetMode = { ...next.budgetMode, ...(value as Record<string, never>) };
      else (next as Record<string, unknown>)[key] = value === null ? defaults()[key] : value;
    }
    if (next.serverErrors?.sequence)
      next.serverErrors = { ...next.serverErrors, sequence: [...next.serverErrors.sequence] };
    this.state = next;
  }

  clear(): void {
    this.state = defaults();
    this.log.inserted.length = 0;
    this.log.removed.length = 0;
  }

  current(): Required<EmulatorFaultsInit> {
    return structuredClone(this.state);
  }

  churnLog(): ChurnLog {
    return { inserted: [...this.log.inserted], removed: [...this.log.removed] };
  }

  recordChurn(kind: 'inserted' | 'removed', id: string): void {
    this.log[kind].push(id);
  }

  latencyMs(): number {
    const l = this.state.latency;
    return l ? l.fixedMs + this.random() * l.jitterMs : 0;
  }

  /** A 5xx status to serve instead of the route, or undefined. */
  serverError(route: EmulatorRoute): number | undefined {
    const f = this.state.serverErrors;
    if (!f || UNFAULTED_ROUTES.includes(route)) return undefined;
    if (f.routes && !f.routes.includes(route)) return undefined;
    if (f.sequence && f.sequence.length > 0) {
      const status = f.sequence.shift()!;
      return status >= 500 ? status : undefined;
    }
    if (f.share !== undefined && this.random() < f.share) {
      this.errorFlip = !this.errorFlip;
      return this.errorFlip ? 500 : 503;
    }
    return undefined;
  }

  take(key: 'force429' | 'forceInvalidCursor'): boolean {
    if (this.state[key] <= 0) return false;
    this.state[key]--;
    return true;
  }

  /** Counts one authenticated request towards a scheduled mid-journey token expiry. */
  countAuthenticated(): void {
    const left = this.state.expireTokensAfter;
    if (left === null) return;
    if (left <= 1) {
      this.state.expireTokensAfter = null;
      this.onExpireTokens();
    } else this.state.expireTokensAfter = left - 1;
  }

  /** The bending of this search answer (counted), or undefined. */
  takeBentPage(): Omit<BentPagesFault, 'times'> | undefined {
    const f = this.state.bentPages;
    if (!f || f.times <= 0) return undefined;
    this.state.bentPages = f.times > 1 ? { ...f, times: f.times - 1 } : null;
    return {
      ...(f.nextCursor === undefined ? {} : { nextCursor: f.nextCursor }),
      ...(f.padBytes === undefined ? {} : { padBytes: f.padBytes }),
    };
  }

  get refuseResentCursor(): boolean {
    return this.state.refuseResentCursor;
  }

  get keepJourneyLimit(): boolean {
    return this.state.keepJourneyLimit;
  }

  get offsetOrderDiffers(): boolean {
    return this.state.offsetOrderDiffers;
  }

  get limiterDown(): boolean {
    return this.state.limiterDown;
  }

  get healthDown(): boolean {
    return this.state.healthDown;
  }

  get churn(): Required<EmulatorFaultsInit>['churn'] {
    return this.state.churn;
  }

  budgetMode(accountId: string): 'normal' | 'stale_reset' | 'store_unavailable' {
    return this.state.budgetMode[accountId] ?? 'normal';
  }
}
