/** What one written batch adds to the run's figures: its counters, and a warning per refused record or failed link. */
import type { WriteResult } from '../../src/crm/index.js';
import type { addCounts } from '../../src/runs/run-counters.js';
import type { Warning } from '../../src/runs/run-warnings.js';
import type { JourneyPage } from '../../src/source/index.js';
import { redactText } from './run-errors.js';

/** One warning per rejected record and failed link, redacted (no keys: a match key may be an email). */
export function warningReasons(result: WriteResult): Warning[] {
  const warnings: Warning[] = [];
  for (const o of result.outcomes) {
    if (o.status === 'rejected') {
      const reason = redactText(o.reason);
      warnings.push({
        code: o.code,
        ...(o.field === undefined ? {} : { field: o.field }),
        reason,
        line: redactText(`rejected (${o.code}): ${o.reason}`),
      });
    } else if ((o.status === 'created' || o.status === 'updated') && o.linkError !== undefined) {
      const reason = redactText(o.linkError);
      warnings.push({ code: 'link_failed', reason, line: `link failed: ${reason}` });
    }
  }
  return warnings;
}

/** The figures of a written batch: its CRM outcomes, and its page's (`batch`) when given. */
export function batchCounts(result: WriteResult, batch?: JourneyPage): Parameters<typeof addCounts>[1] {
  return {
    created: result.created,
    updated: result.updated,
    unchanged: result.unchanged,
    rejected: result.rejected,
    ...(batch
      ? {
          fetched: batch.returned,
          unique: batch.records.length,
          tokensSpent: batch.tokensCharged,
          creditsSpent: batch.creditsCharged,
        }
      : {}),
  };
}
