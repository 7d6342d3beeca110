import type { RunSummary } from './run-summary.js';

/**
 * How many warnings a run had: the summary's `warnings.count` when the run wrote one, else its rejects plus failed
 * links (summaries recorded before `warnings` existed).
 */
export function warningCount(summary: Pick<RunSummary, 'warnings' | 'rejected' | 'linkErrors'>): number {
  return summary.warnings?.count ?? summary.rejected + (summary.linkErrors ?? 0);
}
