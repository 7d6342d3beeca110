/**
 * The token-period benchmark in small (bench/token-period.ts runs the 30 days): two simulated days with a day of
 * index churn on a few hundred companies, two paced searches run by the real gate and syncSearch. Refresh mode
 * `changed` spends fewer tokens per run than `full`; every company that entered a search is in the CRM the same day
 * in `full` mode, nearly every one in `changed` (one that enters a partition another leaves the same day is seen
 * only at that partition's refresh: docs/runs.md).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { simulatePeriod, type PeriodSearch } from '../../bench/lib/token-period-sim.js';
import { testRedis } from '../helpers/redis.js';

const SEARCHES: PeriodSearch[] = [
  {
    name: 'twice-daily',
    priority: 1,
    schedule: { every: '12h' },
    filter: { company: { location: { region: { include: ['north_america', 'latam'] } } } },
  },
  {
    name: 'daily',
    priority: 2,
    schedule: { cron: '0 6 * * *', timezone: 'UTC' },
    filter: { company: { location: { region: { include: ['western_europe', 'dach', 'nordics'] } } } },
  },
];

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

describe('token period (2 simulated days)', () => {
  it('changed mode spends fewer tokens per run than full, and entered companies land the same day', async () => {
    const t = await testRedis('token-period');
    cleanup = t.cleanup;
    const period = (mode: 'full' | 'changed') =>
      simulatePeriod({
        redis: t.redis,
        prefix: `${t.prefix}:${mode}`,
        companies: 600,
        days: 2,
        churnShare: 0.05,
        refresh: { mode, maxAgeDays: 14 },
        // An allotment far above the need: pacing never holds a run here. (Not 10x: a first walk of hundreds of small
        // partitions reserves a page of tokens per journey in flight, more than such a balance.)
        allotmentShare: 100,
        searches: SEARCHES,
      });
    const full = await period('full');
    const changed = await period('changed');
    for (const r of [full, changed]) {
      expect(r.exhaustedRuns).toEqual([]);
      expect(r.otherEndings).toEqual({});
    }
    const sum = (r: typeof full, k: 'entered' | 'enteredSameDay'): number => r.searches.reduce((n, s) => n + s[k], 0);
    for (const s of SEARCHES) {
      const f = full.searches.find((x) => x.search === s.name)!;
      const c = changed.searches.find((x) => x.search === s.name)!;
      expect(c.runs).toBe(f.runs);
      expect(c.tokensPerRunAfterFirst).toBeLessThan(f.tokensPerRunAfterFirst / 2);
      expect([f.entered, f.enteredSameDay]).toEqual([c.entered, f.entered]);
      expect(f.entered).toBeGreaterThan(0);
    }
    expect(sum(changed, 'enteredSameDay')).toBeGreaterThanOrEqual(0.8 * sum(changed, 'entered'));
  });
});
