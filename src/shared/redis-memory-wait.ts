/**
 * Redis out of memory under `noeviction` refuses writes until memory frees (keys expire or are deleted, `maxmemory`
 * is raised): a write that must land (a run's checkpoint, its summary) waits for that instead of being lost.
 */
import { sleep } from './abortable-sleep.js';
import { backoffDelayMs, type BackoffOptions } from './backoff.js';
import { isRedisOutOfMemory } from './redis-connection-error.js';

export const MEMORY_WAIT_BACKOFF: BackoffOptions = { baseDelayMs: 500, maxDelayMs: 10_000 };

export interface MemoryWaitOptions {
  /** Stops the wait (the write's last error is thrown). */
  signal?: AbortSignal;
  /** Called once, at the first refusal. */
  onWait?: (err: unknown) => void;
  backoff?: BackoffOptions;
}

/** `write()`, tried again with backoff while Redis refuses it for want of memory; any other error is thrown. */
export async function whenRedisMemoryFrees<T>(write: () => Promise<T>, options: MemoryWaitOptions = {}): Promise<T> {
  for (let failures = 1; ; failures++) {
    try {
      return await write();
    } catch (err) {
      if (!isRedisOutOfMemory(err) || options.signal?.aborted) throw err;
      if (failures === 1) options.onWait?.(err);
      await sleep(backoffDelayMs(failures, options.backoff ?? MEMORY_WAIT_BACKOFF), options.signal).catch(() => {
        throw err;
      });
    }
  }
}
