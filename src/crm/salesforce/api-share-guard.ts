import { SalesforceApiShareError } from './salesforce-errors.js';

/** The org's API usage as last reported by Sforce-Limit-Info (shared state), or undefined before any report. */
export type ApiUsageReader = () => Promise<{ used: number; limit: number } | undefined>;

/**
 * Keeps this worker under `maxApiShare` of the org's daily API allowance, read from `Sforce-Limit-Info`
 * as the org's governor state keeps it in Redis for every process (see salesforce-caller.ts). Two gaps in that reading
 * are covered here: calls in flight at once all see the same stale header (so each reserves its calls on an estimate),
 * and
 * Bulk API 2.0 responses never reach `conn.limitInfo` (so their calls are counted until the header moves).
 */
export class ApiShareGuard {
  private unreported = 0;
  private lastUsed = -1;
  private estimate = 0;
  private inFlight = 0;

  constructor(
    private readonly readUsage: ApiUsageReader,
    private readonly maxApiShare: number,
  ) {}

  /**
   * Runs `fn`, which makes `calls` requests, unless they would pass the share (SalesforceApiShareError). Unknown usage
   * never blocks.
   */
  async track<T>(calls: number, fn: () => Promise<T>): Promise<T> {
    const usage = await this.readUsage();
    if (usage) {
      if (usage.used !== this.lastUsed) {
        this.lastUsed = usage.used;
        this.unreported = 0;
      }
      const seen = usage.used + this.unreported;
      // With nothing in flight the header (plus unreported bulk calls) is the truth, also when the 24h window rolls.
      const base = this.inFlight === 0 ? seen : Math.max(seen, this.estimate);
      if (base + calls > usage.limit * this.maxApiShare) {
        throw new SalesforceApiShareError({ used: base, limit: usage.limit, maxApiShare: this.maxApiShare });
      }
      this.estimate = base + calls;
    }
    this.inFlight++;
    try {
      return await fn();
    } finally {
      this.inFlight--;
    }
  }

  /** Records requests whose usage header jsforce did not surface (Bulk API 2.0). */
  count(calls: number): void {
    this.unreported += calls;
  }
}
