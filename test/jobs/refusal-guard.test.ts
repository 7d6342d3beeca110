/** The refusal guard's decisions (jobs/sync-search/refusal-guard.ts); the runs themselves are in refusals.test.ts. */
import { describe, expect, it } from 'vitest';
import {
  EARLY_REFUSAL_RECORDS,
  failAboveOf,
  RefusalGuard,
  refusedShareEnding,
} from '../../jobs/sync-search/refusal-guard.js';
import type { AppConfig, SavedSearch } from '../../src/config/index.js';
import { summarize, type WriteOutcome } from '../../src/crm/index.js';
import type { RunCheckpoint } from '../../src/runs/checkpoint-store.js';
import { emptyCounts } from '../../src/runs/run-counters.js';

const refused = (
  n: number,
  code = 'INVALID_INTEGER',
  field: string | undefined = 'numberofemployees',
): WriteOutcome[] =>
  Array.from({ length: n }, (_, i) => ({
    key: `k${i}`,
    status: 'rejected',
    code,
    reason: 'not a number',
    ...(field ? { field } : {}),
  }));
const landed = (n: number): WriteOutcome[] =>
  Array.from({ length: n }, (_, i) => ({ key: `l${i}`, status: 'created', crmId: String(i) }));
const unchanged = (n: number): WriteOutcome[] =>
  Array.from({ length: n }, (_, i) => ({ key: `u${i}`, status: 'unchanged' }));

describe('refusal guard', () => {
  it('stops once the first 200 records sent are all refused for one code and field; small writes until then', () => {
    const guard = new RefusalGuard();
    expect(guard.writeBatch(2_000)).toBe(EARLY_REFUSAL_RECORDS);
    expect(guard.writeBatch(100)).toBe(100);
    guard.book(summarize([...refused(100), ...unchanged(50)]));
    expect(() => guard.book(summarize(refused(100)))).toThrow(
      expect.objectContaining({
        code: 'crm_refused_all',
        details: { crmCode: 'INVALID_INTEGER', field: 'numberofemployees' },
      }),
    );
    expect(guard.writeBatch(2_000)).toBe(2_000);
  });

  it('one record landing, or a second reason, ends the watch', () => {
    const a = new RefusalGuard();
    a.book(summarize([...refused(150), ...landed(1)]));
    a.book(summarize(refused(300)));
    expect(a.writeBatch(2_000)).toBe(2_000);
    const b = new RefusalGuard();
    b.book(summarize([...refused(150), ...refused(1, 'INVALID_INTEGER', 'annualrevenue')]));
    b.book(summarize(refused(300)));
  });

  it('a run of unchanged records gets its normal write size after 200 answers, still watched', () => {
    const guard = new RefusalGuard();
    guard.book(summarize(unchanged(EARLY_REFUSAL_RECORDS)));
    expect(guard.writeBatch(2_000)).toBe(2_000);
    expect(() => guard.book(summarize(refused(EARLY_REFUSAL_RECORDS)))).toThrow(
      expect.objectContaining({ code: 'crm_refused_all' }),
    );
  });

  it('a walked run fails above failAbove (naming the largest group of rejects), not at or below it', () => {
    const cp = (rejected: number, created: number): RunCheckpoint => ({
      runId: 'r',
      startedAt: '',
      counted: 0,
      partitions: [],
      counts: { ...emptyCounts(), rejected, created, unchanged: 1_000 },
      warnings: {
        count: rejected + 3,
        first: [],
        groups: [
          { code: 'link_failed', count: 3, example: 'x' },
          { code: 'CONFLICT', field: 'domain', count: rejected, example: 'dup' },
        ],
      },
    });
    const walked = { kind: 'walked', aborted: false, capped: false } as const;
    expect(refusedShareEnding(walked, cp(50, 50), 0.5)).toBe(walked);
    const failed = refusedShareEnding(walked, cp(51, 49), 0.5);
    expect(failed).toMatchObject({
      kind: 'threw',
      error: { code: 'crm_refused_share', details: { crmCode: 'CONFLICT', field: 'domain' } },
    });
    expect((failed as { error: Error }).error.message).toBe(
      'the CRM refused 51 of the 100 records sent (51%, above rejects.failAbove 50%); ' +
        'most often CONFLICT [domain]: dup',
    );
    // unchanged records were not sent; an aborted walk is left as it is
    expect(refusedShareEnding({ ...walked, aborted: true }, cp(51, 49), 0.5)).toMatchObject({ aborted: true });
    // updated records were sent too; nothing sent is no refused share; another ending is left as it is
    const withUpdates = { ...cp(51, 10), counts: { ...cp(51, 10).counts, updated: 60 } };
    expect(refusedShareEnding(walked, withUpdates, 0.4)).toMatchObject({ kind: 'threw', aborted: false });
    expect(
      (refusedShareEnding(walked, withUpdates, 0.4) as { error: Error }).error.message.startsWith(
        'the CRM refused 51 of the 121 records sent (42.1%',
      ),
    ).toBe(true);
    expect(refusedShareEnding(walked, cp(0, 0), 0.5)).toBe(walked);
    const threw = { kind: 'threw', error: new Error('x'), aborted: false } as const;
    expect(refusedShareEnding(threw, cp(51, 49), 0.5)).toBe(threw);
  });

  it('the early stop names how many records, the code, the field and an example reason', () => {
    const guard = new RefusalGuard();
    expect(() => guard.book(summarize(refused(EARLY_REFUSAL_RECORDS)))).toThrow(
      'the CRM refused each of the first 200 records sent for the same reason, ' +
        'INVALID_INTEGER [numberofemployees]: not a number; the run stopped before fetching the rest ' +
        '(fix the mapping or the CRM field, then run again)',
    );
    // a reason without a field stops the same way, naming the code alone
    const noField = new RefusalGuard();
    expect(() => noField.book(summarize(refused(EARLY_REFUSAL_RECORDS, 'REQUIRED', '')))).toThrow(
      expect.objectContaining({ details: { crmCode: 'REQUIRED' }, message: expect.stringContaining('REQUIRED: not') }),
    );
    // once stopped, it stays quiet
    expect(() => guard.book(summarize(refused(EARLY_REFUSAL_RECORDS)))).not.toThrow();
  });

  it('duplicates in a write are neither sent nor judged: they neither end the watch nor count toward the stop', () => {
    const duplicates = (n: number): WriteOutcome[] =>
      Array.from({ length: n }, (_, i) => ({ key: `d${i}`, status: 'duplicate' }));
    const guard = new RefusalGuard();
    guard.book(summarize([...refused(100), ...duplicates(150)]));
    expect(guard.writeBatch(2_000)).toBe(EARLY_REFUSAL_RECORDS);
    guard.book(summarize(refused(99)));
    expect(() => guard.book(summarize([...duplicates(1), ...refused(1)]))).toThrow(
      expect.objectContaining({ code: 'crm_refused_all', message: expect.stringContaining('first 200 records') }),
    );
  });

  it('another code for the same field is another reason: the watch ends', () => {
    const guard = new RefusalGuard();
    guard.book(summarize([...refused(150), ...refused(1, 'READ_ONLY', 'numberofemployees')]));
    expect(() => guard.book(summarize(refused(300)))).not.toThrow();
    expect(guard.writeBatch(2_000)).toBe(2_000);
  });

  it('a run whose first records all land is never stopped, however many', () => {
    const guard = new RefusalGuard();
    expect(() => guard.book(summarize(landed(EARLY_REFUSAL_RECORDS)))).not.toThrow();
    expect(guard.writeBatch(2_000)).toBe(2_000);
  });

  it('a refused share without grouped warnings (a checkpoint from before groups) says no reason was recorded', () => {
    const walked = { kind: 'walked', aborted: false, capped: false } as const;
    const cp: RunCheckpoint = {
      runId: 'r',
      startedAt: '',
      counted: 0,
      partitions: [],
      counts: { ...emptyCounts(), rejected: 3, created: 1 },
    };
    for (const checkpoint of [cp, { ...cp, warnings: { count: 3, first: [] } }]) {
      const failed = refusedShareEnding(walked, checkpoint, 0.5) as { error: Error };
      expect(failed.error.message).toBe(
        'the CRM refused 3 of the 4 records sent (75%, above rejects.failAbove 50%); most often no reason recorded',
      );
    }
  });

  it('a walk ended without a checkpoint is left as it is', () => {
    const walked = { kind: 'walked', aborted: false, capped: false } as const;
    expect(refusedShareEnding(walked, undefined, 0)).toBe(walked);
  });

  it("failAbove: the search's own, else the config's", () => {
    const config = { rejects: { failAbove: 0.5 } } as AppConfig;
    expect(failAboveOf(config, { rejects: { failAbove: 0.1 } } as SavedSearch)).toBe(0.1);
    expect(failAboveOf(config, { rejects: { failAbove: 0 } } as SavedSearch)).toBe(0);
    expect(failAboveOf(config, {} as SavedSearch)).toBe(0.5);
  });
});
