import { setTimeout as delay } from 'node:timers/promises';
import { SourceAbortedError } from './errors.js';

/** Resolves after `ms`, or rejects with SourceAbortedError as soon as `signal` aborts. */
export async function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  try {
    await delay(Math.max(0, ms), undefined, { signal });
  } catch (error) {
    if (signal?.aborted) throw new SourceAbortedError(signal.reason);
    throw error;
  }
}
