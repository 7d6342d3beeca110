/**
 * The config a long-running process is using, swappable as one value. Every part of the process (workers at the
 * start of each job, the scheduler, the dashboard) reads `current()`, so a reload changes them all at once; a new
 * config that does not load is refused and the old one stays in force.
 */
import { loadConfig, type AppConfig } from '../config/index.js';

export type ReloadResult = { ok: true; config: AppConfig; previous: AppConfig } | { ok: false; error: unknown };

export interface LiveConfig {
  current(): AppConfig;
  /** Re-reads the file. Reloads run one at a time (two quick SIGHUPs read the file twice, in order). */
  reload(): Promise<ReloadResult>;
}

export function createLiveConfig(
  initial: AppConfig,
  path: string,
  load: (path: string) => Promise<AppConfig> = (p) => loadConfig({ path: p }),
): LiveConfig {
  let config = initial;
  let queue: Promise<unknown> = Promise.resolve();
  const reloadOnce = async (): Promise<ReloadResult> => {
    try {
      const next = await load(path);
      const previous = config;
      config = next;
      return { ok: true, config: next, previous };
    } catch (error) {
      return { ok: false, error };
    }
  };
  return {
    current: () => config,
    reload() {
      const result = queue.then(reloadOnce);
      queue = result;
      return result;
    },
  };
}
