/**
 * The deadline of one remote call: its own timer combined with the caller's AbortSignal. A call past its deadline is
 * a network fault (`RemoteTimeoutError`, which every call policy retries); an abort of the caller's signal surfaces
 * as the signal's reason, like src/shared/abortable-sleep.ts, so a run's stop looks the same from every remote.
 */
import { AppError } from './app-error.js';

/** A remote did not answer (headers and whole body) within its deadline. Retryable: nothing was acknowledged. */
export class RemoteTimeoutError extends AppError {
  constructor(remote: string, timeoutMs: number) {
    super('remote_timeout', `${remote} did not answer within ${timeoutMs} ms`, { details: { remote, timeoutMs } });
  }
}

/**
 * Runs `work` with a signal that aborts at the deadline or when `outer` aborts, and settles as soon as either
 * happens even when `work` ignores its signal (a client that cannot be aborted is left to finish in the background;
 * its late result or failure is dropped).
 */
export async function callWithDeadline<T>(
  remote: string,
  timeoutMs: number,
  work: (signal: AbortSignal) => Promise<T>,
  outer?: AbortSignal,
): Promise<T> {
  if (outer?.aborted) throw outer.reason;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new RemoteTimeoutError(remote, timeoutMs)), timeoutMs);
  const onAbort = (): void => controller.abort(outer?.reason);
  outer?.addEventListener('abort', onAbort, { once: true });
  let stop: (() => void) | undefined;
  const stopped = new Promise<never>((_resolve, reject) => {
    stop = () => reject(controller.signal.reason);
    controller.signal.addEventListener('abort', stop, { once: true });
  });
  stopped.catch(() => undefined);
  const running = work(controller.signal);
  running.catch(() => undefined);
  try {
    return await Promise.race([running, stopped]);
  } catch (error) {
    // A client that saw the abort throws its own error: report why it was aborted instead.
    throw controller.signal.aborted ? controller.signal.reason : error;
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener('abort', onAbort);
    if (stop) controller.signal.removeEventListener('abort', stop);
  }
}

/**
 * Settles with `work`, or rejects with `signal`'s reason as soon as it aborts (for calls of a client that takes no
 * signal: the run's stop must not wait for their answer; `work` is left to finish, its result dropped).
 */
export async function untilAborted<T>(work: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return work;
  work.catch(() => undefined);
  signal.throwIfAborted();
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_resolve, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([work, aborted]);
  } finally {
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }
}
