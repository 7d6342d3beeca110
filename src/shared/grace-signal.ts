/**
 * A signal that aborts `graceMs` after `signal` does, with the same reason: work already under way (a CRM write in
 * flight when shutdown begins) may finish, but a hung remote cannot hold the process past its grace period.
 */
export function graceSignal(signal: AbortSignal, graceMs: number): AbortSignal {
  const controller = new AbortController();
  const later = (): void => void setTimeout(() => controller.abort(signal.reason), graceMs).unref();
  if (signal.aborted) later();
  else signal.addEventListener('abort', later, { once: true });
  return controller.signal;
}
