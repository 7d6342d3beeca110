import type { Redis } from 'ioredis';
import { Queue } from 'bullmq';
import type { Logger } from '../shared/logger.js';
import { isRedisConnectionError } from '../shared/redis-connection-error.js';
import { SYNC_QUEUE, TICK_QUEUE, type SyncJobData, type SyncJobResult, type TickJobData } from './job-data.js';
import { SYNC_JOB_OPTIONS, TICK_JOB_OPTIONS } from './job-options.js';

export { DEFAULT_QUEUE_PREFIX, queuePrefix } from './queue-prefix.js';

/** Where the queues live: one ioredis connection (maxRetriesPerRequest null) shared by the Queue objects. */
export interface QueueContext {
  connection: Redis;
  prefix: string;
}

export interface AppQueues {
  sync: Queue<SyncJobData, SyncJobResult>;
  tick: Queue<TickJobData>;
  close(): Promise<void>;
}

/**
 * The Queue objects share the connection, so their errors are that connection's: an outage is logged once by its
 * watcher (shared/redis-watch.ts). A Queue without an 'error' listener would print every retry's stack trace.
 */
function quietOnOutage(queue: Queue, logger: Logger | undefined): void {
  queue.on('error', (err) => {
    if (!isRedisConnectionError(err)) logger?.error({ err, queue: queue.name }, 'queue error');
  });
}

export function openQueues(ctx: QueueContext, logger?: Logger): AppQueues {
  const sync = new Queue<SyncJobData, SyncJobResult>(SYNC_QUEUE, {
    connection: ctx.connection,
    prefix: ctx.prefix,
    defaultJobOptions: SYNC_JOB_OPTIONS,
  });
  const tick = new Queue<TickJobData>(TICK_QUEUE, {
    connection: ctx.connection,
    prefix: ctx.prefix,
    defaultJobOptions: TICK_JOB_OPTIONS,
  });
  quietOnOutage(sync, logger);
  quietOnOutage(tick, logger);
  return {
    sync,
    tick,
    close: async () => {
      await Promise.all([sync.close(), tick.close()]);
    },
  };
}
