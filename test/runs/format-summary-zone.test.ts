/** A run's times shown in its search's time zone beside UTC; without a zone, as the summary holds them. */
import { describe, expect, it } from 'vitest';
import { searchTimeZone } from '../../src/config/index.js';
import { formatSummary } from '../../src/runs/format-summary.js';
import { notStartedSummary } from '../../src/runs/run-summary.js';

const delayed = {
  ...notStartedSummary('icp', 'run-1', false, { code: 'tokens_exhausted', message: 'used up' }),
  status: 'delayed' as const,
  resumeAt: '2026-11-28T04:00:00.000Z',
};

describe('times in the config time zone beside UTC', () => {
  it('the reset a delayed run waits for', () => {
    expect(formatSummary(delayed, 'Europe/Berlin')).toContain(
      'resumes after the budget resets at 2026-11-28 05:00 Europe/Berlin (04:00Z)',
    );
    expect(formatSummary(delayed)).toContain('resumes after the budget resets at 2026-11-28T04:00:00.000Z');
  });

  it("a search's zone: its own schedule's, else the one zone the config's schedules name", () => {
    const searches = [
      { name: 'a', schedule: { cron: '0 5 * * *', timezone: 'Europe/Berlin' } },
      { name: 'b', schedule: { every: '1h' } },
    ] as Parameters<typeof searchTimeZone>[0];
    expect(searchTimeZone(searches, 'a')).toBe('Europe/Berlin');
    expect(searchTimeZone(searches, 'b')).toBe('Europe/Berlin');
    expect(searchTimeZone([searches[1]!], 'b')).toBeUndefined();
  });
});
