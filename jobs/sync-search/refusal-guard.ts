/**
 * Honest outcomes when the CRM refuses what a run sends (docs/runs.md "Honest outcomes"):
 * - early stop: when the first EARLY_REFUSAL_RECORDS records sent are all refused for the same reason (code and
 *   field), the run stops before fetching the rest (`crm_refused_all`): a mapping the CRM refuses for every record
 *   costs a few hundred tokens, not the whole search (writes hold at most that many records until then);
 * - at the end: a run whose refused share of the records sent is above `rejects.failAbove` ends `failed`
 *   (`crm_refused_share`), not `completed`.
 * "Sent" = records written or refused (created, updated, rejected); unchanged records were not sent.
 */
import type { WriteResult } from '../../src/crm/index.js';
import type { AppConfig, SavedSearch } from '../../src/config/index.js';
import type { RunCheckpoint } from '../../src/runs/checkpoint-store.js';
import type { RunPlan } from './plan-run.js';
import { CrmRefusedError, refusalText } from './refusal-errors.js';
import { walkEnding, type RunEnding } from './run-outcome.js';

/**
 * How many records sent decide the early stop: a couple of CRM batches. A refusal that depends on the data (a few
 * bad values) is very unlikely to hit this many records in a row for one reason, while a refusal of the mapping
 * itself costs at most these records' tokens plus the pages already in flight. A larger first write decides on its own.
 */
export const EARLY_REFUSAL_RECORDS = 200;

/** Watches the writes of one run attempt from its first; `book` throws CrmRefusedError to stop the run early. */
export class RefusalGuard {
  private sent = 0;
  /** Records answered so far, unchanged ones included. */
  private judged = 0;
  private reason: { code: string; field?: string; reason: string } | undefined;
  /** Something landed, or two reasons were seen: the run is not refused as a whole, the guard stays quiet. */
  private disarmed = false;

  /**
   * The walk's write batch now: until the first EARLY_REFUSAL_RECORDS records are answered, writes hold at most that
   * many, so a large write (Bulk API 2.0: 2,000 records) cannot fetch a whole search before the first answer. Then
   * the normal size, also while the guard still watches (a run of unchanged records sends nothing to judge).
   */
  writeBatch(normal: number): number {
    return this.disarmed || this.judged >= EARLY_REFUSAL_RECORDS ? normal : Math.min(normal, EARLY_REFUSAL_RECORDS);
  }

  book(result: WriteResult): void {
    if (this.disarmed) return;
    for (const o of result.outcomes) {
      if (o.status === 'duplicate') continue;
      this.judged += 1;
      if (o.status === 'unchanged') continue;
      if (o.status !== 'rejected') return this.disarm();
      // Stryker disable next-line ConditionalExpression: a `field: undefined` key reads as no field everywhere
      this.reason ??= { code: o.code, ...(o.field === undefined ? {} : { field: o.field }), reason: o.reason };
      if (o.code !== this.reason.code || o.field !== this.reason.field) return this.disarm();
      this.sent += 1;
    }
    // Stryker disable next-line ConditionalExpression: a record counted as sent has set the reason (types need it)
    if (this.sent < EARLY_REFUSAL_RECORDS || this.reason === undefined) return;
    const group = { ...this.reason, count: this.sent, example: this.reason.reason };
    this.disarm();
    throw new CrmRefusedError(
      'crm_refused_all',
      `the CRM refused each of the first ${group.count} records sent for the same reason, ${refusalText(group)}; ` +
        'the run stopped before fetching the rest (fix the mapping or the CRM field, then run again)',
      group,
    );
  }

  private disarm(): void {
    this.disarmed = true;
  }
}

/** The search's `rejects.failAbove`, else the config's. */
export function failAboveOf(config: AppConfig, search: SavedSearch): number {
  return search.rejects?.failAbove ?? config.rejects.failAbove;
}

/**
 * A walk that ended normally but whose refused share is above `failAbove` becomes a failure naming the largest group
 * of rejects; any other ending is returned as it is.
 */
export function refusedShareEnding(
  ending: RunEnding,
  checkpoint: Readonly<RunCheckpoint> | undefined,
  failAbove: number,
): RunEnding {
  if (ending.kind !== 'walked' || ending.aborted || !checkpoint) return ending;
  const { created, updated, rejected } = checkpoint.counts;
  const sent = created + updated + rejected;
  if (sent === 0 || rejected / sent <= failAbove) return ending;
  const group = checkpoint.warnings?.groups?.find((g) => g.code !== 'link_failed');
  const share = (n: number): string => `${Math.round(n * 1000) / 10}%`;
  const error = new CrmRefusedError(
    'crm_refused_share',
    `the CRM refused ${rejected} of the ${sent} records sent (${share(rejected / sent)}, ` +
      `above rejects.failAbove ${share(failAbove)}); most often ${refusalText(group)}`,
    group,
  );
  return { kind: 'threw', error, aborted: false };
}

/** How a walk ended (run-outcome.ts), the share of records the CRM refused judged against `rejects.failAbove`. */
export function guardedWalkEnding(
  plan: RunPlan,
  ledger: { checkpoint: Readonly<RunCheckpoint> | undefined },
  aborted: boolean,
  config: AppConfig,
  search: SavedSearch,
): RunEnding {
  return refusedShareEnding(walkEnding(plan, ledger, aborted), ledger.checkpoint, failAboveOf(config, search));
}
