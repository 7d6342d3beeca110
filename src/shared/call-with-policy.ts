/**
 * The one retry loop of every remote. A remote's call policy (src/source/call-policy.ts,
 * src/crm/hubspot/hubspot-call-policy.ts, src/crm/salesforce/salesforce-call-policy.ts) supplies `decide`: given
 * what the last attempt threw and how many failures of each kind this call has seen, retry after a wait or give up.
 */
import { sleep } from './abortable-sleep.js';

export type RetryDecision =
  /** Give up: `error` (default: what the attempt threw) surfaces. */
  | { retry: false; error?: unknown }
  /** Attempt again after `delayMs`. `kind` names the attempt budget this failure counted against (for logs). */
  | { retry: true; delayMs: number; kind: string };

/** Failures of one call so far, by kind ('throttle', 'server', ...): each kind has its own attempt budget. */
export class AttemptTally {
  private readonly counts = new Map<string, number>();

  /** Counts one more failure of `kind` and returns the new count. */
  add(kind: string): number {
    const n = (this.counts.get(kind) ?? 0) + 1;
    this.counts.set(kind, n);
    return n;
  }

  of(kind: string): number {
    return this.counts.get(kind) ?? 0;
  }
}

export type Decide = (error: unknown, tally: AttemptTally) => RetryDecision | Promise<RetryDecision>;

/**
 * Runs `attempt` until it succeeds or `decide` gives up. An abort of `signal` ends the loop: while waiting it
 * surfaces as the signal's reason; during an attempt as whatever the attempt threw.
 */
export async function callWithPolicy<T>(
  decide: Decide,
  attempt: (n: number) => Promise<T>,
  signal?: AbortSignal,
): Promise<T> {
  const tally = new AttemptTally();
  for (let n = 1; ; n++) {
    try {
      return await attempt(n);
    } catch (error) {
      // `decide` sees an aborted attempt too (it may need booking), but an abort is never retried.
      const decision = await decide(error, tally);
      if (!decision.retry) throw decision.error ?? error;
      if (signal?.aborted) throw error;
      await sleep(decision.delayMs, signal);
    }
  }
}
