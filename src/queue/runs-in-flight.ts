/**
 * Which searches have a run queued or active: what a search with `after:` waits for. A run counts while it waits,
 * runs, or is delayed but due within `dueWithinMs` (a recheck, a retry); a run delayed longer (a budget reset weeks
 * away) does not hold its followers back.
 */
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';

const IN_FLIGHT = new Set(['waiting', 'active', 'prioritized', 'waiting-children']);

/** `redis` is the connection the queue was opened on (QueueContext). */
export async function runsInFlight(
  queue: Queue,
  redis: Redis,
  searches: readonly string[],
  dueWithinMs: number,
): Promise<string[]> {
  const now = Date.now();
  const pending = await Promise.all(
    searches.map(async (search) => {
      // Every run is added with the search name as its deduplication id (enqueue-run.ts), held until it ends.
      const jobId = await queue.getDeduplicationJobId(search);
      if (!jobId) return undefined;
      const state = await queue.getJobState(jobId);
      if (IN_FLIGHT.has(state)) return search;
      if (state !== 'delayed') return undefined;
      return (await dueAt(queue, redis, jobId)) - now <= dueWithinMs ? search : undefined;
    }),
  );
  return pending.filter((s): s is string => s !== undefined);
}

/** When a delayed job is due: BullMQ scores its delayed set by due time x 0x1000 plus a counter. */
async function dueAt(queue: Queue, redis: Redis, jobId: string): Promise<number> {
  const score = await redis.zscore(queue.keys.delayed ?? queue.toKey('delayed'), jobId);
  return score === null ? Number.POSITIVE_INFINITY : Math.floor(Number(score) / 0x1000);
}
