/** Which kept partitions a `changed` run walks (src/runs/refresh-selection.ts): pure, no Redis. */
import { describe, expect, it } from 'vitest';
import { refreshCadence, selectPartitions, type Recounted } from '../../src/runs/refresh-selection.js';

const DAY = 24 * 3600_000;
const NOW = Date.parse('2026-03-10T06:00:00Z');

function part(id: string, count: number, ageDays: number, countNow = count): Recounted {
  return { id, filter: { id }, count, countNow, walkedAt: NOW - ageDays * DAY };
}

describe('refresh selection', () => {
  it(
    'walks the changed ones, then the stalest share of those holding records (ties by id); empty unchanged ones ' +
      'never',
    () => {
      const parts = [
        part('a', 10, 1),
        part('b', 10, 3),
        part('c', 10, 3),
        part('d', 10, 2, 11),
        part('e', 0, 9),
        part('f', 10, 1),
      ];
      const { walk, skipped } = selectPartitions(parts, 14, { runsPerInterval: 3, nextRunAt: NOW + DAY });
      expect(walk.map((w) => [w.partition.id, w.reason])).toEqual([
        ['d', 'changed'],
        ['b', 'stale'],
        ['c', 'stale'],
      ]);
      expect(skipped.map((p) => p.id)).toEqual(['a', 'e', 'f']);
    },
  );

  it('sizes the share by the partitions holding records: several empty ones neither count nor get walked', () => {
    const parts = [
      part('a', 10, 4),
      part('b', 10, 3),
      part('c', 10, 2),
      part('d', 10, 1),
      part('e1', 0, 9),
      part('e2', 0, 9),
      part('e3', 0, 9),
      part('e4', 0, 9),
    ];
    // Four runs per interval over four partitions holding records: one each run (eight would make it two).
    const { walk, skipped } = selectPartitions(parts, 14, { runsPerInterval: 4, nextRunAt: NOW + DAY });
    expect(walk.map((w) => [w.partition.id, w.reason])).toEqual([['a', 'stale']]);
    expect(skipped.map((p) => p.id)).toEqual(['b', 'c', 'd', 'e1', 'e2', 'e3', 'e4']);
  });

  it('walks beyond the share every partition that would pass maxAgeDays before the next run', () => {
    // An hourly search: a share of 1 per run, but three partitions would be older than 2 days at the next run.
    const parts = [
      part('a', 5, 2 - 0.5 / 24),
      part('b', 5, 2 - 2 / 24),
      part('c', 5, 2),
      part('d', 5, 1),
      part('e', 5, 2.5),
    ];
    const { walk } = selectPartitions(parts, 2, { runsPerInterval: 48, nextRunAt: NOW + 3600_000 });
    expect(walk.map((w) => w.partition.id).sort()).toEqual(['a', 'c', 'e']);
  });

  it('counts the runs in maxAgeDays from the schedule; a search without one runs daily', () => {
    expect(refreshCadence({ every: '1d' }, 14, NOW)).toMatchObject({ runsPerInterval: 14 });
    expect(refreshCadence({ cron: '0 * * * *' }, 2, NOW)).toMatchObject({
      runsPerInterval: 48,
      nextRunAt: NOW + 3600_000 - (NOW % 3600_000),
    });
    expect(refreshCadence(undefined, 7, NOW)).toEqual({ runsPerInterval: 7, nextRunAt: NOW + DAY });
  });
});
