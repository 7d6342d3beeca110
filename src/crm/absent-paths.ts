/**
 * Mapped record paths the run's records did not have: a path absent in (nearly) every record is a mapping mistake
 * (`jobtitle: job_title` where the field is `jobTitle`), which a run would otherwise hide (the field is left out of
 * every write). Counted per page of the run into its checkpoint; warned at its end.
 */
import type { FieldMapping } from './field-mapping.js';
import { readPath } from './record-path.js';

/** Records counted and, per mapped path (`from`, as written in the config), how many lacked it. */
export interface AbsentTally {
  records: number;
  absent: Record<string, number>;
}

/** A path absent in more than this share of the run's records is warned about (every record of a small run). */
export const ABSENT_WARN_SHARE = 0.95;

/** The person segment a reveal-once page leaves out by design for persons revealed before (docs/runs.md). */
const PASSED_BY_SEGMENT = 'contacts';

/** The mapped CRM fields whose source is in that segment: a record may come without them and keep their CRM values. */
export function passedByFields(mapping: FieldMapping): string[] {
  return mapping.fields.filter((f) => f.path?.[0] === PASSED_BY_SEGMENT).map((f) => f.field);
}

/**
 * `tally` plus these records (a new object). `revealOnce`: the page came from a reveal-once journey (or a dry run,
 * which asks for no contacts), so a record without its `contacts` segment was passed by on purpose and is not
 * counted for paths into it.
 */
export function tallyAbsent(
  tally: AbsentTally | undefined,
  mapping: FieldMapping,
  records: readonly unknown[],
  revealOnce = false,
): AbsentTally {
  const next: AbsentTally = { records: tally?.records ?? 0, absent: { ...tally?.absent } };
  // Each path once, however many fields it feeds; constants have none.
  const paths = new Map([
    [mapping.matchFrom.join('.'), mapping.matchFrom],
    ...mapping.fields.flatMap((f) => (f.path === undefined ? [] : [[f.from, f.path] as const])),
  ]);
  for (const record of records) {
    next.records += 1;
    for (const [from, path] of paths) {
      if (readPath(record, path) !== undefined) continue;
      if (revealOnce && path[0] === PASSED_BY_SEGMENT && readPath(record, [PASSED_BY_SEGMENT]) === undefined) {
        continue;
      }
      next.absent[from] = (next.absent[from] ?? 0) + 1;
    }
  }
  return next;
}

/**
 * One warning per path absent in more than ABSENT_WARN_SHARE of the records: "mapped path job_title was absent in 45 of
 * 45 records".
 */
export function absentPathWarnings(tally: AbsentTally | undefined): string[] {
  if (tally === undefined || tally.records === 0) return [];
  return Object.entries(tally.absent)
    .filter(([, n]) => n > tally.records * ABSENT_WARN_SHARE)
    .map(([from, n]) => `mapped path ${from} was absent in ${n} of ${tally.records} records`);
}
