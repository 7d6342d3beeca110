/** Largest write (records) gathered before the ledger commits: it bounds what a crash makes a run fetch again. */
export const MAX_WRITE_BATCH = 2_000;

/**
 * Records per CRM write of a run: the destination's preferred batch for the run's volume (`preferred`), at least
 * a page (pages are not split), at most MAX_WRITE_BATCH.
 */
export function writeBatchOf(pageSize: number, preferred: number): number {
  return Math.max(pageSize, Math.min(MAX_WRITE_BATCH, preferred));
}
