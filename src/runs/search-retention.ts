/**
 * What happens to the run state of a search removed from the config: its run history and totals, its mirror
 * membership (the run keys without a TTL of their own) and its reveal tally get an expiry, so a removed or renamed
 * search's keys go away after RETIRED_SEARCH_TTL_SECONDS instead of living forever. A search back in the config before
 * then keeps them: their expiry is lifted. Called by the scheduler leader whenever it syncs the Job Schedulers with the
 * config.
 */
import type { Redis } from 'ioredis';
import { scanKeys } from '../shared/redis.js';
import { revealTallyPattern } from '../source/reveal-store.js';
import { isRunMatchedKey, membershipKeysPattern } from './membership-store.js';
import { runKeys } from './run-keys.js';
import { runTotalsKey } from './run-totals.js';

/** How long the history and totals of a removed search are kept (rejects are kept as long). */
export const RETIRED_SEARCH_TTL_SECONDS = 30 * 24 * 3600;

export interface RetentionResult {
  /** Searches whose keys were given an expiry now. */
  retired: string[];
  /** Searches back in the config whose keys had one. */
  restored: string[];
}

/**
 * Sets the expiry on the keys of every search that has run state but is not in `current`, and removes it from the
 * history and totals of searches in `current`. The countdown starts once: later syncs do not push it back.
 */
export async function retireRemovedSearches(
  redis: Redis,
  prefix: string,
  current: readonly string[],
): Promise<RetentionResult> {
  const known = new Set<string>();
  const pattern = new RegExp(`^${prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:run:([^:]+):(?:history|totals)$`);
  for (const key of [
    ...(await scanKeys(redis, `${prefix}:run:*:history`)),
    ...(await scanKeys(redis, `${prefix}:run:*:totals`)),
  ]) {
    const name = pattern.exec(key)?.[1];
    if (name !== undefined) known.add(name);
  }
  const keep = new Set(current);
  const result: RetentionResult = { retired: [], restored: [] };
  for (const name of known) {
    const membership = (await scanKeys(redis, membershipKeysPattern(name, prefix))).filter(
      (k) => !isRunMatchedKey(k, name, prefix),
    );
    const { history, overview } = runKeys(name, prefix);
    const own = [history, overview, runTotalsKey(name, prefix), ...membership];
    if (keep.has(name)) {
      const lifted = await Promise.all(own.map((k) => redis.persist(k)));
      if (lifted.some((n) => n === 1)) result.restored.push(name);
      continue;
    }
    // LT: sets the expiry on keys without one and shortens longer ones (reveal tallies), but never pushes back a
    // countdown already running.
    const keys = [...own, ...(await scanKeys(redis, revealTallyPattern(prefix, name)))];
    const set = await Promise.all(keys.map((k) => redis.expire(k, RETIRED_SEARCH_TTL_SECONDS, 'LT')));
    if (set.some((n) => n === 1)) result.retired.push(name);
  }
  return result;
}
