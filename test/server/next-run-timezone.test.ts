/** The overview's next run in the schedule's time zone beside UTC, not UTC alone next to a Berlin cron. */
import { describe, expect, it } from 'vitest';
import type { SavedSearch } from '../../src/config/index.js';
import { runsIndexPage } from '../../src/server/runs-pages.js';
import type { SearchRow } from '../../src/server/run-views.js';

const row = (name: string, schedule: SavedSearch['schedule'], nextRunAt: number): SearchRow => ({
  search: { name, destination: 'crm', schedule } as SavedSearch,
  schedule: 'cron 0 5 * * *',
  nextRunAt,
  last: undefined,
  recent: [],
  live: undefined,
});

describe('next run', () => {
  it('shows the config time zone beside UTC (winter and summer time), and UTC alone without a zone', async () => {
    const winter = Date.parse('2026-11-28T04:00:00Z');
    const summer = Date.parse('2026-07-01T03:00:00Z');
    const page = await runsIndexPage([
      row('a', { cron: '0 5 * * *', timezone: 'Europe/Berlin' }, winter),
      row('b', { cron: '0 5 * * *', timezone: 'Europe/Berlin' }, summer),
      row('c', { every: '1h' } as SavedSearch['schedule'], Date.parse('2026-11-28T09:30:00Z')),
    ]);
    expect(page).toContain('2026-11-28 05:00 Europe/Berlin (04:00Z)');
    expect(page).toContain('2026-07-01 05:00 Europe/Berlin (03:00Z)');
    expect(page).toContain('2026-11-28 09:30:00Z');
  });
});
