import type { CrmRecord, ObjectTarget, UpsertOutcome } from '../crm-sink.js';
import { isMissingParent } from './save-outcome.js';
import type { PreparedTarget } from './salesforce-schema.js';

/** How a person links to its company: the nested relationship (e.g. `Account`) and the parent's external-id field. */
export interface Link {
  relationship: string;
  field: string;
}

/** The link of a target's records, when it links (persons with `associate` and a lookup to the parent). */
export function linkOf(prepared: PreparedTarget, target: ObjectTarget): Link | undefined {
  return prepared.relationship && target.associate
    ? { relationship: prepared.relationship, field: target.associate.matchField }
    : undefined;
}

/** A record's body with the parent's external id nested under the relationship (`Account: {Ext__c: 'acc-1'}`). */
export function withLink(
  body: Record<string, unknown>,
  record: CrmRecord,
  link: Link | undefined,
): Record<string, unknown> {
  if (link && record.companyKey) body[link.relationship] = { [link.field]: record.companyKey };
  return body;
}

/**
 * Persons whose company is not (yet) in Salesforce fail as a whole on the nested reference. Write them again
 * without the link (`writeUnlinked`) so their data lands, and report the missing link as `linkError`.
 */
export async function relinkless(
  target: ObjectTarget,
  records: CrmRecord[],
  outcomes: UpsertOutcome[],
  writeUnlinked: (records: CrmRecord[]) => Promise<UpsertOutcome[]>,
): Promise<UpsertOutcome[]> {
  const retry = outcomes.flatMap((o, i) => (isMissingParent(o) && records[i]!.companyKey ? [i] : []));
  if (retry.length === 0) return outcomes;
  const again = await writeUnlinked(retry.map((i) => records[i]!));
  retry.forEach((index, j) => {
    const outcome = again[j]!;
    const parent = `${target.associate?.object ?? 'company'} ${records[index]!.companyKey!}`;
    outcomes[index] =
      outcome.status === 'rejected'
        ? outcome
        : { ...outcome, linkError: `${parent} not found in Salesforce; record written without the link` };
  });
  return outcomes;
}
