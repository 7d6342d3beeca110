/** Pacing's decision: a run that leaves less than the higher-priority searches need until the reset waits. */
import { describe, expect, it } from 'vitest';
import type { SavedSearch } from '../../src/config/index.js';
import { paceRun, type PacedSearch } from '../../src/runs/token-pacing.js';

const H = 3_600_000;
const NOW = Date.parse('2026-03-01T10:30:00.000Z');
const hourly = { every: '1h' } as SavedSearch['schedule'];
const daily = { every: '1d' } as SavedSearch['schedule'];
const pace = (tokens: number) => ({ tokens, credits: 0, basis: 'history' as const, runs: 5 });

// Reset at 15:30: the hourly searches run at 11:00 .. 15:00 (5 runs), the daily one not before the reset.
const balance = (remaining: number) => ({ remaining, resetAt: NOW + 5 * H });
const SEARCHES: PacedSearch[] = [
  { search: 'key', schedule: hourly, pace: pace(1000), priority: 10 },
  { search: 'mid', schedule: hourly, pace: pace(200), priority: 5 },
  { search: 'low', schedule: daily, pace: pace(700), priority: 0 },
];

describe('paceRun', () => {
  it('delays the low-priority run when it would leave less than the others need; the high one runs', () => {
    // key needs 5,000, mid 1,000: low may run only with 6,000 + 700 spendable.
    const low = paceRun({
      search: 'low',
      priority: 0,
      schedule: daily,
      searches: SEARCHES,
      balance: balance(7_000),
      reserve: 301,
      now: new Date(NOW),
    });
    expect(low).toEqual({ delay: true, needed: 6_000, run: 700, spendable: 6_699, retryAt: NOW + 5 * H });
    expect(
      paceRun({
        search: 'low',
        priority: 0,
        schedule: daily,
        searches: SEARCHES,
        balance: balance(7_000),
        reserve: 300,
        now: new Date(NOW),
      }).delay,
    ).toBe(false);

    const mid = paceRun({
      search: 'mid',
      priority: 5,
      schedule: hourly,
      searches: SEARCHES,
      balance: balance(5_100),
      reserve: 0,
      now: new Date(NOW),
    });
    expect(mid).toEqual({
      delay: true,
      needed: 5_000,
      run: 200,
      spendable: 5_100,
      retryAt: Date.parse('2026-03-01T11:00:00.000Z'),
    });
    const key = paceRun({
      search: 'key',
      priority: 10,
      schedule: hourly,
      searches: SEARCHES,
      balance: balance(500),
      reserve: 0,
      now: new Date(NOW),
    });
    expect(key).toMatchObject({ delay: false, needed: 0, run: 1000 });
  });

  it('a search never run, or a balance past its reset, is not paced', () => {
    expect(
      paceRun({
        search: 'new',
        priority: 0,
        schedule: hourly,
        searches: SEARCHES,
        balance: balance(10),
        reserve: 0,
        now: new Date(NOW),
      }).delay,
    ).toBe(false);
    expect(
      paceRun({
        search: 'low',
        priority: 0,
        schedule: daily,
        searches: SEARCHES,
        balance: { remaining: 10, resetAt: NOW - 1 },
        reserve: 0,
        now: new Date(NOW),
      }).delay,
    ).toBe(false);
  });
});
