/**
 * What one CRM write answers: an outcome per record and their figures. A write can fail after the CRM took some of
 * its records (Redis refused the bookkeeping that follows an answer, or a later chunk failed): the error keeps its
 * own type and code, and carries the outcomes answered before it, so the run still counts what the CRM holds.
 */
import type { UpsertOutcome } from './crm-sink.js';

export type WriteOutcome =
  | UpsertOutcome
  | { key: string; status: 'unchanged' }
  /** Same match key again in one write: only the last copy is sent. */
  | { key: string; status: 'duplicate' };

export interface WriteResult {
  created: number;
  updated: number;
  unchanged: number;
  rejected: number;
  /** Records written but not linked to their company (company not in the CRM yet). */
  linkErrors: number;
  /** Records written and linked to their company. */
  linked: number;
  duplicates: number;
  /** One per source record, in input order. Dry runs report `created`/`updated` as they would happen, with crmId ''. */
  outcomes: WriteOutcome[];
}

/** The figures of a write (or of any run of its outcomes: a packed write's share of one batch). */
export function summarize(outcomes: WriteOutcome[]): WriteResult {
  const result: WriteResult = {
    created: 0,
    updated: 0,
    unchanged: 0,
    rejected: 0,
    linkErrors: 0,
    linked: 0,
    duplicates: 0,
    outcomes,
  };
  for (const o of outcomes) {
    if (o.status === 'duplicate') result.duplicates += 1;
    else result[o.status] += 1;
    if ((o.status === 'created' || o.status === 'updated') && o.linkError !== undefined) result.linkErrors += 1;
    if ((o.status === 'created' || o.status === 'updated') && o.linked) result.linked += 1;
  }
  return result;
}

/** Outcomes by input index of a failed write; a record with none was not answered. */
export type AnsweredOutcomes = readonly (WriteOutcome | undefined)[];

const answeredOf = new WeakMap<object, AnsweredOutcomes>();

/** `err`, carrying the outcomes its write answered before it was thrown (kept only for an object error). */
export function withAnswered(err: unknown, outcomes: AnsweredOutcomes): unknown {
  if (typeof err === 'object' && err !== null) answeredOf.set(err, outcomes);
  return err;
}

/** The outcomes the failed write of `err` answered before it failed, by input index; undefined: none known. */
export function answeredBefore(err: unknown): AnsweredOutcomes | undefined {
  return typeof err === 'object' && err !== null ? answeredOf.get(err) : undefined;
}

/** Whether the CRM took any record of these outcomes (created or updated): then a failed batch is in the CRM. */
export function landedAny(outcomes: AnsweredOutcomes): boolean {
  return outcomes.some((o) => o?.status === 'created' || o?.status === 'updated');
}
