/** `scheduler`: this role only (see start.ts), for scaling out. */
import { runRoles } from './start.js';

export function runCommand(argv: string[]): Promise<number> {
  return runRoles({ scheduler: true, worker: false, dashboard: false }, argv);
}
