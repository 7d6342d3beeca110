import { createRedis } from '../../src/shared/redis.js';
import { testRedis } from '../helpers/redis.js';
import type { QueueContext } from '../../src/queue/index.js';

/** A queue context under a unique BullMQ prefix, with a worker-grade connection, and a cleanup for both. */
export async function queueEnv(label: string): Promise<{ ctx: QueueContext; cleanup: () => Promise<void> }> {
  const t = await testRedis(label);
  const connection = createRedis(process.env.REDIS_URL);
  return {
    ctx: { connection, prefix: t.prefix },
    cleanup: async () => {
      connection.disconnect();
      await t.cleanup();
    },
  };
}

export async function waitFor<T>(
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 10_000,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > until) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
