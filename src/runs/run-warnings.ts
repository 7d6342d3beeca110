/**
 * Warnings of a run that otherwise completed: records the CRM rejected and persons whose company link failed. The
 * summary carries how many and the first reasons (already redacted by the caller), so `completed` does not hide them.
 */
export interface RunWarnings {
  count: number;
  /** Up to MAX_WARNING_REASONS reasons, first seen first; never contact details. */
  first: string[];
}

export const MAX_WARNING_REASONS = 5;

/** `warnings` plus `reasons` (one per warning); a new object, `undefined` while there is nothing to warn about. */
export function addWarnings(warnings: RunWarnings | undefined, reasons: readonly string[]): RunWarnings | undefined {
  if (reasons.length === 0) return warnings;
  const first = [...(warnings?.first ?? [])];
  for (const reason of reasons) if (first.length < MAX_WARNING_REASONS) first.push(reason);
  return { count: (warnings?.count ?? 0) + reasons.length, first };
}

/**
 * How many warnings a run had: the summary's `warnings.count` when the run wrote one, else its rejects plus failed
 * links (summaries recorded before `warnings` existed).
 */
export function warningCount(summary: { warnings?: RunWarnings; rejected: number; linkErrors?: number }): number {
  return summary.warnings?.count ?? summary.rejected + (summary.linkErrors ?? 0);
}

