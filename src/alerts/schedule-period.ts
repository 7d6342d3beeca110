import { CronExpressionParser } from 'cron-parser';
import { parseEvery, type SavedSearch } from '../config/index.js';

/** Length of one schedule period (ms) around `now`, or undefined for a manual-only search. */
export function schedulePeriodMs(schedule: SavedSearch['schedule'], now = new Date()): number | undefined {
  if (!schedule) return undefined;
  if ('every' in schedule) return parseEvery(schedule.every);
  // Cron: the gap between the next two firings (uneven patterns use the next gap).
  const it = CronExpressionParser.parse(schedule.cron, {
    currentDate: now,
    ...(schedule.timezone ? { tz: schedule.timezone } : {}),
  });
  const a = it.next().getTime();
  const b = it.next().getTime();
  return b - a;
}
