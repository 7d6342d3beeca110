/**
 * The overview's budget strip forecasts with the allotment forecast `plan --all` uses (src/runs/allotment-forecast.ts).
 */
import { describe, expect, it } from 'vitest';
import type { SavedSearch } from '../../src/config/index.js';
import type { RunSummary } from '../../src/runs/run-summary.js';
import { budgetStrip } from '../../src/server/budget-strip.js';

const HOUR = 3_600_000;
const now = Date.parse('2026-11-25T10:30:00Z');
const search = (name: string, every?: string): SavedSearch =>
  ({ name, ...(every ? { schedule: { every } } : {}) }) as unknown as SavedSearch;
const run = (tokensSpent: number): RunSummary =>
  ({ status: 'completed', tokensSpent, creditsSpent: 0, dryRun: false }) as unknown as RunSummary;
const budgets = (remaining: number) => [
  {
    account: 'a',
    tokens: { limit: 100_000, remaining, resetAt: now + 10 * HOUR, observedAt: now },
    creditsToday: 0,
    creditsTotal: 0,
  },
];

describe('budget strip', () => {
  it(
    'says when the scheduled runs at their recent pace use the allotment up before the reset, and by which ' + 'search',
    async () => {
      // hourly at 1,000 tokens a run: 10 runs (11:00 .. 20:00) need 10,000; 5,000 left less a reserve of 500 -> the 5th
      // run
      const html = await budgetStrip({
        budgets: budgets(5_000),
        caps: {},
        reserve: 500,
        now,
        searches: [{ search: search('hourly', '1h'), recent: [run(1_000), run(1_000)] }],
      });
      expect(html).toContain(
        'the scheduled runs need 10,000 tokens before the reset: the allotment runs out in 4 h 30 min (a run of ' +
          'hourly)',
      );
    },
  );

  it('says what is left at the reset when the runs fit, and counts searches that never ran apart', async () => {
    const html = await budgetStrip({
      budgets: budgets(50_000),
      caps: {},
      reserve: 0,
      now,
      searches: [
        { search: search('hourly', '1h'), recent: [run(1_000)] },
        { search: search('new', '1d'), recent: [] },
        { search: search('manual'), recent: [run(9)] },
      ],
    });
    expect(html).toContain('the scheduled runs need about 10,000 tokens before the reset: ~40,000 left then');
    expect(html).toContain('(1 not yet run, not counted)');
  });
});
