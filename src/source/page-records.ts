/** Which records of a page a run keeps: those it sees for the first time (run-dedup.ts), unless suppressed. */
import { recordId, type PageDedup } from './run-dedup.js';
import type { Suppression } from './suppression.js';

export interface KeptRecords {
  records: unknown[];
  /** Ids the run saw first on this page, kept or suppressed: held as seen once the page is committed. */
  admitted: string[];
  suppressed: number;
  /** Match keys under which the suppressed records leave the search's mirror. */
  suppressedKeys: string[];
}

/** Records without an id are always kept: nothing tells them apart. */
export async function keptRecords(
  dedup: PageDedup,
  delivered: readonly unknown[],
  idField: string,
  suppression: Suppression | undefined,
): Promise<KeptRecords> {
  const ids = delivered.map((record) => recordId(record, idField));
  const first = await dedup.admit(ids.filter((id): id is string => id !== undefined));
  const kept: KeptRecords = { records: [], admitted: [], suppressed: 0, suppressedKeys: [] };
  let asked = 0;
  delivered.forEach((record, i) => {
    const id = ids[i];
    if (id !== undefined) {
      if (first[asked++] !== true) return;
      kept.admitted.push(id);
    }
    // A suppressed person's record (with its contacts, if revealed) goes no further than this page.
    if (suppression?.suppressed(record) !== true) {
      kept.records.push(record);
      return;
    }
    kept.suppressed += 1;
    const key = suppression.leaverKey(record);
    if (key !== undefined) kept.suppressedKeys.push(key);
  });
  return kept;
}
