/**
 * A schedule's run times counted without listing them: the same times as cron-parser's own walk (time zones, DST days,
 * day-of-month/day-of-week rules, seconds), and a forecast whose cron work does not grow with the ticks.
 */
import { CronExpression, CronExpressionParser } from 'cron-parser';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { SavedSearch } from '../../src/config/index.js';
import { forecastAllotment, type SearchPaceInput } from '../../src/runs/allotment-forecast.js';
import { scheduleTicks } from '../../src/runs/schedule-ticks.js';

const D = 86_400_000;

/** cron-parser's walk, tick by tick: the reference. */
function walk(cron: string, tz: string, from: number, until: number): number[] {
  const it = CronExpressionParser.parse(cron, { tz, currentDate: new Date(from) });
  const out: number[] = [];
  for (let t = it.next().getTime(); t < until; t = it.next().getTime()) out.push(t);
  return out;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('scheduleTicks', () => {
  const crons = [
    '*/15 * * * *',
    '0 2 * * *',
    '30 2 * * *',
    '0 1-3 * * *',
    '45 1,2 * * 1-5',
    '0 9 1,15 * *',
    '0 9 L * *',
    '0 9 * * 5L',
    '0 9 * * 1#2',
    '0 9 13 * 5',
    '0 0 * 3,11 *',
    '*/20 */7 * * *',
    '15,45 */10 * * 0,6',
  ];
  const zones = ['UTC', 'Europe/Berlin', 'America/New_York', 'Australia/Sydney', 'Asia/Kolkata'];
  // Windows across the spring and autumn transitions of both hemispheres, starting mid-tick and mid-day.
  const windows = [
    [Date.parse('2026-03-01T10:30:07.250Z'), Date.parse('2026-04-12T00:00:00Z')],
    [Date.parse('2026-09-20T23:59:59.999Z'), Date.parse('2026-11-08T13:00:00Z')],
  ] as const;

  for (const tz of zones)
    it(`the times cron-parser walks, in ${tz}`, () => {
      for (const cron of crons)
        for (const [from, until] of windows) {
          const expected = walk(cron, tz, from, until);
          const ticks = scheduleTicks({ cron, timezone: tz }, from, until);
          const got = Array.from({ length: ticks.total }, (_, k) => ticks.at(k));
          expect({ cron, got }).toEqual({ cron, got: expected });
          expect(ticks.at(ticks.total)).toBeUndefined();
          for (const [k, t] of expected.entries()) {
            if (k % 7 !== 0) continue;
            expect(ticks.before(t)).toBe(k);
            expect(ticks.before(t + 1)).toBe(k + 1);
          }
        }
    });

  it('seconds, and `every` aligned to the epoch', () => {
    const from = Date.parse('2026-03-28T23:59:58.500Z');
    const until = from + 2 * D;
    expect(scheduleTicks({ cron: '*/10 * * * * *', timezone: 'Europe/London' }, from, until).total).toBe(
      walk('*/10 * * * * *', 'Europe/London', from, until).length,
    );
    const every = scheduleTicks({ every: '6h' }, from, until);
    expect([every.total, every.at(0), every.before(from + 1)]).toEqual([8, Date.parse('2026-03-29T00:00:00Z'), 0]);
    expect(scheduleTicks(undefined, from, until).total).toBe(0);
  });
});

describe('the forecast counts runs, it does not list them', () => {
  const now = new Date('2026-03-01T10:30:00Z');
  const searches = (schedule: SavedSearch['schedule'], n: number): SearchPaceInput[] =>
    Array.from({ length: n }, (_, i) => ({
      search: `s${i}`,
      schedule,
      pace: { tokens: 10, credits: 0, basis: 'history', runs: 5 },
    }));

  it('300 searches at */15 over 30 days: no cron step per tick, and the exhausting run found', () => {
    const steps = vi.spyOn(CronExpression.prototype, 'next');
    const f = forecastAllotment({
      balance: { limit: 10_000_000, remaining: 5_000_000, resetAt: now.getTime() + 30 * D },
      searches: searches({ cron: '*/15 * * * *', timezone: 'UTC' }, 300),
      now,
    });
    expect(steps).not.toHaveBeenCalled();
    // After 10:30 and before 10:30 thirty days on: both ends excluded.
    expect(f.searches[0]?.runsLeft).toBe(30 * 96 - 1);
    expect(f.tokens).toBe(300 * (30 * 96 - 1) * 10);
    // 5,000,000 tokens cover 500,000 runs of 300 searches at the same instants: 1,666 instants, then 200 of the next.
    expect([f.exhaustsAt, f.exhaustedBy]).toEqual([
      new Date(Date.parse('2026-03-01T10:45:00Z') + 1_666 * 900_000).toISOString(),
      's200',
    ]);
  });

  it('a DST transition in the window costs the steps of that one day, once per pattern', () => {
    const calls = vi.spyOn(CronExpression.prototype, 'next');
    const f = forecastAllotment({
      balance: { limit: 10_000_000, remaining: 5_000_000, resetAt: now.getTime() + 40 * D },
      searches: searches({ cron: '*/5 * * * *', timezone: 'America/Chicago' }, 300),
      now,
    });
    const steps = calls.mock.calls.length;
    const reference = walk('*/5 * * * *', 'America/Chicago', now.getTime(), now.getTime() + 40 * D).length;
    expect(f.searches[0]?.runsLeft).toBe(reference);
    // The spring-forward day's 276 ticks and the step past its end, not 40 days x 288 ticks x 300 searches.
    expect(steps).toBe(277);
  });

  it('every second for 30 days: counted exactly, not cut at a cap', () => {
    const f = forecastAllotment({
      balance: { limit: 1e12, remaining: 1e12, resetAt: now.getTime() + 30 * D },
      searches: searches({ cron: '* * * * * *', timezone: 'UTC' }, 2),
      now,
    });
    expect(f.searches.map((s) => s.runsLeft)).toEqual([30 * 86_400 - 1, 30 * 86_400 - 1]);
  });
});
