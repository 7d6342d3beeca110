/**
 * A record cap shared by every journey of one run in this process (e.g. a saved search's `maxRecords` walked by
 * several partitions at once). Each page reserves its `limit` before it is sent, so parallel journeys together
 * never pass the cap; what a page did not use goes back.
 */
export class RecordQuota {
  private reserved = 0;

  /** `used`: records this run already fetched before (from its checkpoint). */
  constructor(readonly max: number, private used = 0) {}

  /** Records still free (neither fetched nor reserved by a page in flight). */
  get left(): number {
    return Math.max(0, this.max - this.used - this.reserved);
  }

  get fetched(): number {
    return this.used;
  }

  /** Reserves up to `wanted` records; returns how many were granted (0 when the cap is reached). */
  reserve(wanted: number): number {
    const granted = Math.min(wanted, this.left);
    this.reserved += granted;
    return granted;
  }

  /** Books `returned` records of a reservation of `granted` and frees the rest. */
  settle(granted: number, returned: number): void {
    this.reserved -= granted;
    this.used += returned;
  }
}
