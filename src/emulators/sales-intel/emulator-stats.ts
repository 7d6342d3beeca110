/** Per-account request and charge counters for tests and benchmarks. */
import type { EmulatorRoute, EmulatorStats, RateOperation } from './types.js';

const ROUTES: EmulatorRoute[] = [
  'token',
  'companies.search',
  'persons.search',
  'companies.count',
  'persons.count',
  'dictionary',
  'settings',
  'health',
];
const OPERATIONS: RateOperation[] = ['search', 'count', 'dictionary'];

function emptyStats(): EmulatorStats {
  return {
    requests: Object.fromEntries(ROUTES.map((r) => [r, 0])) as Record<EmulatorRoute, number>,
    operations: Object.fromEntries(OPERATIONS.map((o) => [o, 0])) as Record<RateOperation, number>,
    served429: Object.fromEntries(OPERATIONS.map((o) => [o, 0])) as Record<RateOperation, number>,
    peakPerWindow: Object.fromEntries(OPERATIONS.map((o) => [o, 0])) as Record<RateOperation, number>,
    peakInFlight: Object.fromEntries(OPERATIONS.map((o) => [o, 0])) as Record<RateOperation, number>,
    served402: 0,
    served401: 0,
    served5xx: 0,
    served400: 0,
    served422: 0,
    tokensCharged: 0,
    creditsCharged: 0,
    recordsReturned: 0,
  };
}

function addInto(target: EmulatorStats, s: EmulatorStats): void {
  for (const r of ROUTES) target.requests[r] += s.requests[r];
  for (const o of OPERATIONS) {
    target.operations[o] += s.operations[o];
    target.served429[o] += s.served429[o];
    // Windows are per account: the peak over several accounts is the highest single one, not a sum.
    target.peakPerWindow[o] = Math.max(target.peakPerWindow[o], s.peakPerWindow[o]);
    target.peakInFlight[o] = Math.max(target.peakInFlight[o], s.peakInFlight[o]);
  }
  target.served402 += s.served402;
  target.served401 += s.served401;
  target.served5xx += s.served5xx;
  target.served400 += s.served400;
  target.served422 += s.served422;
  target.tokensCharged += s.tokensCharged;
  target.creditsCharged += s.creditsCharged;
  target.recordsReturned += s.recordsReturned;
}

/** Requests without an account (401s, health, bad token calls) are kept under ''. */
export class StatsBook {
  private readonly byAccount = new Map<string, EmulatorStats>();

  of(accountId: string): EmulatorStats {
    let s = this.byAccount.get(accountId);
    if (!s) {
      s = emptyStats();
      this.byAccount.set(accountId, s);
    }
    return s;
  }

  snapshot(accountId?: string): EmulatorStats {
    const out = emptyStats();
    if (accountId !== undefined) addInto(out, this.of(accountId));
    else for (const s of this.byAccount.values()) addInto(out, s);
    return out;
  }

  reset(): void {
    this.byAccount.clear();
  }
}
