/**
 * /runs gives the event loop a turn whenever a slice of its render has used its time (src/shared/in-turns.ts), so
 * /healthz and other requests wait for one slice at most: here every reading of the clock finds the slice used up,
 * as on a machine where each step is slow, and the render must turn the loop after every row and every search's
 * forecast, not after every tenth or once at the end.
 */
import { describe, expect, it } from 'vitest';
import type { SavedSearch } from '../../src/config/index.js';
import type { RecentRun } from '../../src/runs/run-overview.js';
import { budgetStrip } from '../../src/server/budget-strip.js';
import type { SearchRow } from '../../src/server/run-views.js';
import { runsIndexPage } from '../../src/server/runs-pages.js';
import { Turns } from '../../src/shared/in-turns.js';
import { racingClock, turnsWhile } from '../helpers/event-loop-turns.js';

const NOW = Date.parse('2026-11-28T03:00:00Z');
const recent: RecentRun[] = Array.from({ length: 30 }, (_, i) => ({
  status: 'completed',
  dryRun: false,
  fetched: 100 + i,
  tokensSpent: 1_000,
  creditsSpent: 0,
}));
const rows = (n: number): SearchRow[] =>
  Array.from({ length: n }, (_, i) => ({
    search: { name: `s${i}`, destination: 'crm', schedule: { cron: '*/15 * * * *', timezone: 'UTC' } } as SavedSearch,
    schedule: 'cron */15 * * * * (UTC)',
    nextRunAt: NOW + 60_000,
    last: undefined,
    recent,
    live: undefined,
  }));
const slowMachine = (): Turns => new Turns(10, racingClock(20));

describe('/runs render in turns of the event loop', () => {
  it('turns the loop after each row whose slice used its time, and still renders every row', async () => {
    const { result: html, turns } = await turnsWhile(() => runsIndexPage(rows(300), { turns: slowMachine() }));
    expect(turns).toBeGreaterThanOrEqual(299);
    expect(html.match(/<tr>/g)).toHaveLength(301);
    expect(html).toContain('href="/runs/s299"');
  });

  it("turns the loop while the budget strip forecasts, a step per search's schedule and per bisection", async () => {
    const budgets = [
      {
        account: 'a',
        tokens: { limit: 1_000_000, remaining: 50_000, resetAt: NOW + 10 * 86_400_000, observedAt: NOW },
        creditsToday: 0,
        creditsTotal: 0,
      },
    ];
    const input = { budgets, caps: {}, reserve: 0, searches: rows(40), now: NOW };
    const { result: html, turns } = await turnsWhile(() => budgetStrip(input, slowMachine()));
    expect(turns).toBeGreaterThanOrEqual(40);
    // 40 searches at 1,000 tokens a run: 03:15 spends 40,000, at 03:30 the 11th run goes past 50,000.
    expect(html).toContain('the allotment runs out in 30 min (a run of s10)');
    expect(await budgetStrip(input)).toBe(html);
  });
});
