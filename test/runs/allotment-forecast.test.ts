/**
 * The allotment forecast's arithmetic: runs left from `every` (epoch-aligned, as BullMQ) and cron schedules, the
 * pace from recent runs, and the first run the balance no longer covers.
 */
import { describe, expect, it } from 'vitest';
import type { SavedSearch } from '../../src/config/index.js';
import {
  forecastAllotment,
  forecastAllotmentInTurns,
  paceFromCount,
  paceFromHistory,
  scheduledRunTimes,
} from '../../src/runs/allotment-forecast.js';
import { emptyCounts, type RunSummary } from '../../src/runs/run-summary.js';
import { Turns } from '../../src/shared/in-turns.js';
import { racingClock, turnsWhile } from '../helpers/event-loop-turns.js';

const H = 3_600_000;
const D = 24 * H;
const NOW = Date.parse('2026-03-01T10:30:00.000Z');

function run(status: RunSummary['status'], tokensSpent: number, creditsSpent = 0, dryRun = false): RunSummary {
  const at = new Date(NOW).toISOString();
  return {
    search: 's',
    status,
    ...emptyCounts(),
    tokensSpent,
    creditsSpent,
    durationMs: 1,
    runId: 'r',
    startedAt: at,
    finishedAt: at,
    dryRun,
    partitions: 1,
  };
}

describe('scheduledRunTimes', () => {
  it('every: multiples of the interval after now and before the reset', () => {
    const times = scheduledRunTimes({ every: '6h' }, NOW, NOW + 2 * D);
    expect(times[0]).toBe(Date.parse('2026-03-01T12:00:00.000Z'));
    expect(times).toHaveLength(8); // 12:00, 18:00, then 4 a day; 2026-03-03T06:00 is the last before 10:30
    expect(times.at(-1)).toBe(Date.parse('2026-03-03T06:00:00.000Z'));
  });

  it('cron in its time zone; a manual search has none', () => {
    const times = scheduledRunTimes(
      { cron: '0 2 * * *', timezone: 'Europe/Berlin' },
      NOW,
      Date.parse('2026-03-11T00:00:00.000Z'),
    );
    expect(times.map((t) => new Date(t).toISOString())).toEqual(
      Array.from({ length: 9 }, (_, i) => `2026-03-${String(i + 2).padStart(2, '0')}T01:00:00.000Z`),
    );
    expect(scheduledRunTimes(undefined, NOW, NOW + D)).toEqual([]);
    expect(scheduledRunTimes({ every: '1h' }, NOW, NOW - 1)).toEqual([]);
  });
});

describe('pace', () => {
  it('the mean of the last 5 runs that walked, rounded up; dry, failed and delayed runs do not count', () => {
    const runs = [
      run('completed', 100, 3),
      run('failed', 0),
      run('partial', 51, 0),
      run('completed', 999, 0, true),
      run('delayed', 0),
      run('completed', 100),
      run('completed', 100),
      run('completed', 100),
      run('completed', 5000),
    ];
    expect(paceFromHistory(runs)).toEqual({ tokens: 91, credits: 1, basis: 'history', runs: 5 }); // 451/5, 3/5
    expect(paceFromHistory([run('failed', 0)])).toBeNull();
  });

  it('a count: every match, capped by maxRecords, credits for contacts', () => {
    expect(paceFromCount(1200, {}, false)).toEqual({ tokens: 1200, credits: 0, basis: 'count', runs: 0 });
    expect(paceFromCount(1200, { maxRecords: 500 }, true)).toEqual({
      tokens: 500,
      credits: 500,
      basis: 'count',
      runs: 0,
    });
  });

  it(
    'refresh mode changed: a search never run pays a full first run, then its share; its history leaves out the ' +
      'full walk of a new split',
    () => {
      expect(paceFromCount(1400, {}, false, { runsPerInterval: 14 })).toEqual({
        tokens: 100,
        credits: 0,
        basis: 'count',
        runs: 0,
        firstRunTokens: 1400,
      });
      const refreshed = (tokens: number, rebuilt?: 'first'): RunSummary => ({
        ...run('completed', tokens),
        refresh: {
          mode: 'changed',
          kept: 0,
          walked: { changed: 0, new: 0, stale: 1 },
          skipped: 0,
          counts: 1,
          fullTokens: 1400,
          ...(rebuilt ? { rebuilt } : {}),
        },
      });
      // Newest first: two steady runs after the first full walk.
      expect(paceFromHistory([refreshed(110), refreshed(90), refreshed(1400, 'first')])).toMatchObject({
        tokens: 100,
        runs: 2,
      });
      // A search back in full mode: every run counts again.
      expect(paceFromHistory([run('completed', 1400), refreshed(90), refreshed(1400, 'first')])).toMatchObject({
        tokens: 964,
        runs: 3,
      });
      const f = forecastAllotment({
        balance: { limit: 100_000, remaining: 10_000, resetAt: NOW + 10 * D },
        now: new Date(NOW),
        searches: [
          {
            search: 'daily',
            schedule: { cron: '0 2 * * *' } as SavedSearch['schedule'],
            pace: paceFromCount(1400, {}, false, { runsPerInterval: 14 }),
          },
        ],
      });
      expect(f.searches[0]).toMatchObject({ runsLeft: 10, tokensPerRun: 100, tokens: 1400 + 9 * 100 });
    },
  );
});

describe('forecastAllotment', () => {
  const daily = { cron: '0 2 * * *' } as SavedSearch['schedule'];
  const sixHourly = { every: '6h' } as SavedSearch['schedule'];
  const balance = { limit: 100_000, remaining: 10_000, resetAt: NOW + 10 * D };

  it('totals per search until the reset, and no exhaustion while the balance covers every run', () => {
    const f = forecastAllotment({
      balance,
      now: new Date(NOW),
      searches: [
        { search: 'daily', schedule: daily, pace: { tokens: 300, credits: 2, basis: 'history', runs: 5 } },
        { search: 'often', schedule: sixHourly, pace: { tokens: 150, credits: 0, basis: 'count', runs: 0 } },
      ],
    });
    expect(f.searches).toEqual([
      {
        search: 'daily',
        runsLeft: 10,
        nextRunAt: '2026-03-02T02:00:00.000Z',
        tokensPerRun: 300,
        creditsPerRun: 2,
        basis: 'history',
        tokens: 3000,
        credits: 20,
      },
      {
        search: 'often',
        runsLeft: 40,
        nextRunAt: '2026-03-01T12:00:00.000Z',
        tokensPerRun: 150,
        creditsPerRun: 0,
        basis: 'count',
        tokens: 6000,
        credits: 0,
      },
    ]);
    expect(f).toMatchObject({
      tokens: 9000,
      credits: 20,
      tokensLeftAtReset: 1000,
      exhaustsAt: null,
      exhaustedBy: null,
      resetAt: '2026-03-11T10:30:00.000Z',
    });
  });

  it('the first run past the balance less the reserve: its time and search', () => {
    const f = forecastAllotment({
      balance,
      reserve: 2_000,
      now: new Date(NOW),
      searches: [
        { search: 'daily', schedule: daily, pace: { tokens: 300, credits: 0, basis: 'history', runs: 5 } },
        { search: 'often', schedule: sixHourly, pace: { tokens: 150, credits: 0, basis: 'history', runs: 5 } },
      ],
    });
    // Per day from 03-02: 300 + 4 x 150 = 900; 12:00 and 18:00 of 03-01 spend 300 first. 8,000 spendable:
    // after 03-08 (7 days) 300 + 6,300 = 6,600; 03-09 00:00 6,750, 02:00 7,050, 06:00 7,200, 12:00 7,350,
    // 18:00 7,500; 03-10 00:00 7,650, 02:00 7,950, 06:00 8,100 > 8,000.
    expect(f.exhaustsAt).toBe('2026-03-10T06:00:00.000Z');
    expect(f.exhaustedBy).toBe('often');
    expect(f.tokensLeftAtReset).toBe(10_000 - 2_000 - 9_000);
  });
});

describe('forecastAllotmentInTurns', () => {
  it('forecasts what forecastAllotment does, in turns of the event loop', async () => {
    const input = {
      balance: { limit: 100_000, remaining: 3_000, resetAt: NOW + 10 * D },
      now: new Date(NOW),
      searches: ['a', 'b', 'c'].map((search) => ({
        search,
        schedule: { cron: '*/15 * * * *' } as SavedSearch['schedule'],
        pace: paceFromCount(100, {}, false),
      })),
    };
    const { result, turns } = await turnsWhile(() => forecastAllotmentInTurns(input, new Turns(10, racingClock(20))));
    expect(result).toEqual(forecastAllotment(input));
    expect(result.exhaustedBy).not.toBeNull();
    expect(turns).toBeGreaterThanOrEqual(3);
  });
});
