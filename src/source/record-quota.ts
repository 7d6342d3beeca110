/**
 * A record cap shared by every journey of one run in this process (e.g. a saved search's `maxRecords` walked by
 * several partitions at once). Each page reserves its `limit` before it is sent, so parallel journeys together
 * never pass the cap; what a page did not keep goes back. The cap counts distinct records (those the run's dedup
 * admitted): a live index's repeats cost tokens but do not use up the user's limit.
 */
export class RecordQuota {
  private reserved = 0;

  /** `used`: distinct records this run already kept before (from its checkpoint). */
  constructor(
    readonly max: number,
    private used = 0,
  ) {}

  /** Records still free (neither kept nor reserved by a page in flight). */
  get left(): number {
    return Math.max(0, this.max - this.used - this.reserved);
  }

  /** Records reserved by pages in flight. */
  get inFlight(): number {
    return this.reserved;
  }

  /** Distinct records kept against the cap so far. */
  get kept(): number {
    return this.used;
  }

  /** Reserves up to `wanted` records; returns how many were granted (0 when the cap is reached). */
  reserve(wanted: number): number {
    const granted = Math.min(wanted, this.left);
    this.reserved += granted;
    return granted;
  }

  /** Books `kept` distinct records of a reservation of `granted` and frees the rest. */
  settle(granted: number, kept: number): void {
    this.reserved -= granted;
    this.used += kept;
  }
}
