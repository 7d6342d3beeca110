import type { RepeatOptions } from 'bullmq';
import { parseEvery } from '../config/index.js';
import { AppError } from '../shared/app-error.js';

/** The part of a saved search the scheduler needs (structurally compatible with the config's `SavedSearch`). */
export interface SchedulableSearch {
  name: string;
  schedule?: { cron?: string; timezone?: string; every?: string | number } | undefined;
}

export class ScheduleError extends AppError {
  constructor(search: string, message: string) {
    super('schedule_invalid', `search '${search}': ${message}`, { details: { search } });
  }
}

type RepeatSpec = Pick<RepeatOptions, 'pattern' | 'tz' | 'every'>;

/** BullMQ repeat options for a search, or undefined when it has no schedule (manual runs only). */
export function repeatOptionsFor(search: SchedulableSearch): RepeatSpec | undefined {
  const schedule = search.schedule;
  if (!schedule) return undefined;
  if (schedule.cron !== undefined) {
    return schedule.timezone ? { pattern: schedule.cron, tz: schedule.timezone } : { pattern: schedule.cron };
  }
  if (schedule.every !== undefined) {
    const every = parseEvery(schedule.every);
    if (every === undefined) throw new ScheduleError(search.name, `invalid every '${String(schedule.every)}'`);
    return { every };
  }
  throw new ScheduleError(search.name, 'schedule needs cron or every');
}
