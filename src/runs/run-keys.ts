/**
 * Redis keys of one saved search's runs. Every key sits under a caller-chosen prefix (tests use a unique one;
 * production uses the queue prefix) so several deployments and test files can share one Redis server.
 */
export const DEFAULT_RUNS_PREFIX = 'prospect-sync';

export interface RunKeys {
  lock: string;
  history: string;
  checkpoint: string;
  /** The overview's value (run-overview.ts). */
  overview: string;
}

export function runKeys(search: string, prefix: string = DEFAULT_RUNS_PREFIX): RunKeys {
  const base = `${prefix}:run:${search}`;
  return {
    lock: `${base}:lock`,
    history: `${base}:history`,
    checkpoint: `${base}:checkpoint`,
    overview: `${base}:overview`,
  };
}
