/** The search page's charts show the mirror's entered and left once a complete run has kept the search's matches. */
import { describe, expect, it } from 'vitest';
import type { RunSummary } from '../../src/runs/run-summary.js';
import { runHistoryPage } from '../../src/server/runs-pages.js';

const run = (extra: Partial<RunSummary>): RunSummary => ({
  search: 's', status: 'completed', counted: 10, fetched: 10, unique: 10, created: 0, updated: 0, unchanged: 10, rejected: 0,
  tokensSpent: 10, creditsSpent: 0, requests: { search: 1, count: 1 }, throttled: 0, durationMs: 1000, runId: 'r',
  startedAt: '2026-11-25T10:00:00Z', finishedAt: '2026-11-25T10:00:01Z', dryRun: false, partitions: 1, ...extra,
}) as RunSummary;

describe('search page charts', () => {
  it('draw entered and left when the runs carry them', () => {
    const page = runHistoryPage('s', [run({ entered: 3, left: 1 }), run({ entered: 10, left: 0 })], undefined);
    expect(page).toContain('Entered and left');
  });

  it('leave them out before the mirror has a complete run', () => {
    expect(runHistoryPage('s', [run({})], undefined)).not.toContain('Entered and left');
  });
});
