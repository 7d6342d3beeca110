import { SourceAbortedError } from './errors.js';

/** Resolves after `ms`, or rejects with SourceAbortedError as soon as `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new SourceAbortedError(signal.reason));
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new SourceAbortedError(signal?.reason));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, Math.max(0, ms));
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
