import { setTimeout as delay } from 'node:timers/promises';

/**
 * Resolves after `ms`; rejects with the signal's reason as soon as `signal` aborts (whoever aborts decides the
 * error, so a run's abort surfaces the same way from every remote).
 */
export async function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) throw signal.reason;
  try {
    await delay(Math.max(0, ms), undefined, signal ? { signal } : undefined);
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    throw error;
  }
}
