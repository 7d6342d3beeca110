import { addToGroups, type RejectGroup, type Refused } from '../crm/reject-groups.js';

/**
 * Warnings of a run that otherwise completed: records the CRM rejected and persons whose company link failed. The
 * summary carries how many and the first reasons (already redacted by the caller), so `completed` does not hide them.
 */
export interface RunWarnings {
  count: number;
  /** Up to MAX_WARNING_REASONS different reasons, first seen first; never contact details. */
  first: string[];
  /**
   * The warnings by CRM code and field, largest first, each with its count and one example reason (up to
   * MAX_WARNING_GROUPS groups; `count` above counts every warning).
   */
  groups?: RejectGroup[];
}

export const MAX_WARNING_REASONS = 5;
export const MAX_WARNING_GROUPS = 20;

/** One warning: the line shown in `first`, and what it is grouped by. */
export interface Warning extends Refused {
  line: string;
}

/**
 * `warnings` plus these (one per rejected record or failed link); a new object, `undefined` while there is nothing to
 * warn about.
 */
export function addWarnings(warnings: RunWarnings | undefined, added: readonly Warning[]): RunWarnings | undefined {
  if (added.length === 0) return warnings;
  const first = [...(warnings?.first ?? [])];
  for (const { line } of added) if (first.length < MAX_WARNING_REASONS && !first.includes(line)) first.push(line);
  return {
    count: (warnings?.count ?? 0) + added.length,
    first,
    groups: addToGroups(warnings?.groups ?? [], added, MAX_WARNING_GROUPS),
  };
}

/**
 * How many warnings a run had: the summary's `warnings.count` when the run wrote one, else its rejects plus failed
 * links (summaries recorded before `warnings` existed).
 */
export function warningCount(summary: { warnings?: RunWarnings; rejected: number; linkErrors?: number }): number {
  return summary.warnings?.count ?? summary.rejected + (summary.linkErrors ?? 0);
}
