/** What a figure was measured on: cores, CPU model, Node, and the load average (`uptime`) at that moment. */
import { cpus, loadavg, totalmem } from 'node:os';

export function machine(): string {
  const c = cpus();
  return (
    `${c.length} cores (${c[0]?.model.trim() ?? '?'}), ${(totalmem() / 2 ** 30).toFixed(0)} GB, ` +
    `Node ${process.version}`
  );
}

/** `uptime`'s three load averages (1, 5, 15 min), e.g. "load 6.92 8.31 7.86". */
export function load(): string {
  return `load ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`;
}
