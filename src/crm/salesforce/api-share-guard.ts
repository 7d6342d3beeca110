import type { Connection } from 'jsforce';
import { SalesforceApiShareError } from './salesforce-errors.js';

/**
 * Keeps this worker under `maxApiShare` of the org's daily API allowance, read from `Sforce-Limit-Info`
 * (jsforce keeps the last value in `conn.limitInfo`). Bulk API 2.0 responses do not reach `conn.limitInfo`,
 * so the calls made since the last header are counted here and added to the projection.
 */
export class ApiShareGuard {
  private unreported = 0;
  private lastUsed = -1;

  constructor(private readonly conn: Connection, private readonly maxApiShare: number) {}

  /** Throws SalesforceApiShareError when `calls` more requests would pass the share. Unknown usage never blocks. */
  check(calls = 1): void {
    const usage = this.conn.limitInfo?.apiUsage;
    if (!usage) return;
    if (usage.used !== this.lastUsed) {
      this.lastUsed = usage.used;
      this.unreported = 0;
    }
    const projected = usage.used + this.unreported + calls;
    if (projected > usage.limit * this.maxApiShare) {
      throw new SalesforceApiShareError({ used: usage.used + this.unreported, limit: usage.limit, maxApiShare: this.maxApiShare });
    }
  }

  /** Records requests whose usage header jsforce did not surface. */
  count(calls: number): void {
    this.unreported += calls;
  }
}
