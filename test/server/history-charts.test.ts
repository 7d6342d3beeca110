/**
 * The search page's charts show the mirror's entered and left once a complete run has kept the search's matches;
 * the history and the overview show the mirror's figures where a run has them.
 */
import { describe, expect, it } from 'vitest';
import type { RunSummary } from '../../src/runs/run-summary.js';
import type { SavedSearch } from '../../src/config/index.js';
import { runHistoryPage, runsIndexPage } from '../../src/server/runs-pages.js';
import type { SearchRow } from '../../src/server/run-views.js';

const run = (extra: Partial<RunSummary>): RunSummary =>
  ({
    search: 's',
    status: 'completed',
    counted: 10,
    fetched: 10,
    unique: 10,
    created: 0,
    updated: 0,
    unchanged: 10,
    rejected: 0,
    tokensSpent: 10,
    creditsSpent: 0,
    requests: { search: 1, count: 1 },
    throttled: 0,
    durationMs: 1000,
    runId: 'r',
    startedAt: '2026-11-25T10:00:00Z',
    finishedAt: '2026-11-25T10:00:01Z',
    dryRun: false,
    partitions: 1,
    ...extra,
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

describe('runs pages: the mirror figures', () => {
  it('the history has a Mirror column with each figure, and a List column once a run of a list: search has one', () => {
    const mirrored = run({
      runId: 'm',
      entered: 3,
      left: 1,
      leaveActions: 1,
      leaversPending: 2,
      listAdded: 4,
      listRemoved: 1,
    });
    const page = runHistoryPage('s', [mirrored, run({ runId: 'old' })], undefined);
    expect(page).toContain('<th scope="col">Mirror</th>');
    expect(page).toContain('<th scope="col">List</th>');
    for (const figure of ['3 entered', '1 left', '1 leave actions', '2 leavers pending', '4 added', '1 removed'])
      expect(page).toContain(`<span class="nowrap">${figure}</span>`);
    expect(page).toContain('List added and removed');
    const noList = runHistoryPage('s', [run({ entered: 3, left: 0, leaveActions: 0, leaversPending: 0 })], undefined);
    expect(noList).toContain('<span class="nowrap">3 entered</span>');
    expect(noList).not.toContain('<th scope="col">List</th>');
    expect(runHistoryPage('s', [run({})], undefined)).not.toContain('leave actions');
  });

  it("the overview shows the last run's mirror figures", async () => {
    const last = run({ entered: 3, left: 1, leaveActions: 1, leaversPending: 2, listAdded: 4, listRemoved: 1 });
    const row: SearchRow = {
      search: { name: 's', destination: 'crm' } as SavedSearch,
      schedule: 'manual',
      nextRunAt: undefined,
      last,
      recent: [last],
      live: undefined,
    };
    expect(await runsIndexPage([row])).toContain(
      '3 entered · 1 left · 1 leave actions · 2 leavers pending · 4 added to the list · 1 removed from it',
    );
    expect(await runsIndexPage([{ ...row, last: run({}) }])).not.toContain('entered');
  });
});

describe('runs pages: refresh on change', () => {
  it('the history says what a changed-mode run walked of its search, and leaves the column out otherwise', () => {
    const refreshed = run({
      runId: 'c',
      tokensSpent: 1_250,
      refresh: {
        mode: 'changed',
        kept: 465,
        walked: { changed: 4, new: 0, stale: 34 },
        skipped: 427,
        counts: 466,
        held: 2,
        fullTokens: 20_000,
      },
    });
    const rebuilt = run({
      runId: 'f',
      tokensSpent: 20_000,
      refresh: {
        mode: 'changed',
        kept: 0,
        walked: { changed: 0, new: 465, stale: 0 },
        skipped: 0,
        counts: 480,
        fullTokens: 20_000,
        rebuilt: 'first',
      },
    });
    const page = runHistoryPage('s', [refreshed, rebuilt], undefined);
    expect(page).toContain('<th scope="col">Refresh</th>');
    expect(page).toContain(
      '38 of 465 partitions (4 changed, 34 stalest)<br>1250 of 20000 tokens · 466 counts · 2 held',
    );
    expect(page).toContain('465 of 465 partitions (new split (first))<br>20000 of 20000 tokens · 480 counts');
    expect(runHistoryPage('s', [run({})], undefined)).not.toContain('<th scope="col">Refresh</th>');
  });
});

describe('search page charts: their axes', () => {
  it('say what the y axis measures and show the start dates of the oldest and newest run on the x axis', () => {
    const page = runHistoryPage(
      's',
      [run({ startedAt: '2026-11-25T10:00:00Z' }), run({ startedAt: '2026-11-03T22:30:00Z' })],
      undefined,
    );
    const records = /<figure class="chart"><figcaption>Records<\/figcaption>[\s\S]*?<\/figure>/.exec(page)?.[0] ?? '';
    expect(records).toContain('>records per run</text>');
    expect(records).toContain('>2026-11-03</text>');
    expect(records).toContain('>2026-11-25</text>');
    expect(records).toContain('x: run start date (UTC)');
    expect(records).toContain('started 2026-11-03 to 2026-11-25');
    expect(records).not.toContain('>oldest<');
    expect(page).toContain('>tokens per run</text>');
    expect(page).toContain('>credits per run</text>');
    expect(page).toContain('>run duration</text>');
  });
});

describe('the overview: list and after', () => {
  it("shows each search's list: name, and its after: while idle", async () => {
    const row = (search: Partial<SavedSearch>): SearchRow => ({
      search: { name: 'people', destination: 'crm', ...search } as SavedSearch,
      schedule: 'every 1h',
      nextRunAt: undefined,
      last: undefined,
      recent: [],
      live: undefined,
    });
    const html = await runsIndexPage([row({ list: { name: 'DACH leaders' }, after: ['companies', 'accounts'] })]);
    const search = /data-label="Search">[\s\S]*?<\/td>/.exec(html)?.[0] ?? '';
    const now = /data-label="Now">[\s\S]*?<\/td>/.exec(html)?.[0] ?? '';
    expect(search).toContain('list DACH leaders');
    expect(now).toMatch(/^data-label="Now">idle<br><span class="muted">runs after companies, accounts<\/span>/);
    const plain = await runsIndexPage([row({})]);
    expect(plain).not.toContain('runs after');
    expect(plain).not.toContain('list ');
  });
});
