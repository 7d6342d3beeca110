import type { Queue } from 'bullmq';
import { TICK_JOB, type TickJobData } from './job-data.js';
import { TICK_JOB_OPTIONS } from './job-options.js';
import { repeatOptionsFor, type SchedulableSearch } from './schedule-spec.js';

export interface SchedulerSyncResult {
  upserted: string[];
  unchanged: string[];
  removed: string[];
}

/**
 * Makes the tick queue's Job Schedulers match the config: one per scheduled search (id = search name), upserted
 * only when its schedule changed (no churn on restarts), and removed when the search left the config or lost its
 * schedule. Call it from the scheduler leader only.
 */
export async function syncJobSchedulers(
  queue: Queue<TickJobData>,
  searches: readonly SchedulableSearch[],
): Promise<SchedulerSyncResult> {
  const desired = new Map(
    searches.flatMap((s) => {
      const repeat = repeatOptionsFor(s);
      return repeat ? [[s.name, repeat] as const] : [];
    }),
  );
  const existing = await queue.getJobSchedulers(0, -1);
  const result: SchedulerSyncResult = { upserted: [], unchanged: [], removed: [] };

  for (const scheduler of existing) {
    const id = scheduler.key;
    const want = desired.get(id);
    if (!want) {
      await queue.removeJobScheduler(id);
      result.removed.push(id);
    } else if (
      scheduler.pattern === want.pattern &&
      scheduler.tz === want.tz &&
      scheduler.every === want.every &&
      scheduler.template?.data?.search === id
    ) {
      desired.delete(id);
      result.unchanged.push(id);
    }
  }
  for (const [name, repeat] of desired) {
    await queue.upsertJobScheduler(name, repeat, { name: TICK_JOB, data: { search: name }, opts: TICK_JOB_OPTIONS });
    result.upserted.push(name);
  }
  return result;
}
