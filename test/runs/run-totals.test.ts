import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { recordRun } from '../../src/runs/run-history.js';
import { emptyCounts, type RunSummary } from '../../src/runs/run-summary.js';
import { readRunTotals } from '../../src/runs/run-totals.js';
import { testRedis } from '../helpers/redis.js';

let redis: Redis;
let prefix: string;
let cleanup: () => Promise<void>;
beforeAll(async () => ({ redis, prefix, cleanup } = await testRedis('run-totals')));
afterAll(async () => cleanup());

function summary(
  runId: string,
  status: RunSummary['status'],
  fetched: number,
  extra: Partial<RunSummary> = {},
): RunSummary {
  const at = new Date().toISOString();
  return {
    search: 's',
    status,
    ...emptyCounts(),
    fetched,
    created: fetched,
    tokensSpent: fetched,
    durationMs: 2_500,
    runId,
    startedAt: at,
    finishedAt: at,
    dryRun: false,
    partitions: 1,
    ...extra,
  };
}

describe('run totals', () => {
  it(
    'add each run once: a retried run id adds only its growth; dry runs are not counted; history trimming does ' +
      'not lower them',
    async () => {
      const opts = { prefix, keep: 1 };
      await recordRun(redis, summary('a', 'failed', 40, { linkErrors: 3 }), opts);
      // attempt 2: counts include attempt 1's
      await recordRun(redis, summary('a', 'completed', 100, { linkErrors: 3 }), opts);
      await recordRun(redis, summary('b', 'partial', 7, { stopReason: 'max_records', durationMs: 90_000 }), opts);
      await recordRun(redis, summary('c', 'completed', 1000, { dryRun: true }), opts);
      const t = await readRunTotals(redis, 's', { prefix });
      expect(t.counters).toMatchObject({ fetched: 107, created: 107, tokensSpent: 107, linkErrors: 3 });
      expect(t.runs).toEqual({ 'failed|none': 1, 'completed|none': 1, 'partial|max_records': 1 });
      expect(t.duration.count).toBe(3);
      expect(t.duration.sum).toBeCloseTo(95, 6);
      expect(t.duration.buckets['1']).toBeUndefined(); // exported as 0
      expect(t.duration.buckets).toMatchObject({ '5': 2, '60': 2, '300': 3, '21600': 3 });
    },
  );

  it('add the mirror figures of complete runs (entered, left, leave actions); runs without them add 0', async () => {
    const opts = { prefix };
    const m = (runId: string, extra: Partial<RunSummary>): RunSummary => ({
      ...summary(runId, 'completed', 5, extra),
      search: 'm',
    });
    await recordRun(redis, m('m1', { entered: 40 }), opts);
    await recordRun(redis, m('m2', { entered: 2, left: 3, leaveActions: 1, leaversPending: 2 }), opts);
    await recordRun(redis, m('m3', {}), opts);
    expect((await readRunTotals(redis, 'm', { prefix })).counters).toMatchObject({
      entered: 42,
      left: 3,
      leaveActions: 1,
    });
  });
});
