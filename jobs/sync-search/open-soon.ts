/**
 * Starts work that is mostly synchronous CPU (opening the CRM end: a CRM client's first load in a process) a
 * little after the caller's first requests went out, so it overlaps their network wait instead of delaying them. The
 * delay lets a fresh connection connect and write its request first; where it does not suffice (a slow TLS handshake),
 * the work only delays what it delayed before.
 */
const AFTER_MS = 15;

export function openSoon<T>(open: () => Promise<T>): Promise<T> {
  const opened = new Promise<void>((resolve) => setTimeout(resolve, AFTER_MS)).then(open);
  // Awaited later by the caller, or not at all when the run ends first (closed through `.catch` there).
  opened.catch(() => undefined);
  return opened;
}
