/**
 * The match keys a run found suppressed (`suppress:`, `suppress.crm`), kept beside its matched set until the mirror
 * step makes them leave the search's membership (docs/data-protection.md). Kept in Redis, not in the worker: a run
 * resumed by a later attempt, in any process, adds to them. Never a contact detail (the walk keeps none).
 */
import type { Redis } from 'ioredis';
import { KEYS_PER_COMMAND, RUN_MATCHED_TTL_SECONDS, runMatchedKey, setPages } from './membership-store.js';
import { DEFAULT_RUNS_PREFIX } from './run-keys.js';

export function runSuppressedKey(search: string, runId: string, prefix: string = DEFAULT_RUNS_PREFIX): string {
  return `${runMatchedKey(search, runId, prefix)}:suppressed`;
}

export async function addRunSuppressed(
  redis: Redis,
  search: string,
  runId: string,
  keys: Iterable<string>,
  prefix: string = DEFAULT_RUNS_PREFIX,
): Promise<void> {
  const key = runSuppressedKey(search, runId, prefix);
  let part: string[] = [];
  const flush = async (): Promise<void> => {
    if (part.length === 0) return;
    await redis
      .multi()
      .sadd(key, ...part)
      .expire(key, RUN_MATCHED_TTL_SECONDS)
      .exec();
    part = [];
  };
  for (const k of keys) {
    part.push(k);
    if (part.length >= KEYS_PER_COMMAND) await flush();
  }
  await flush();
}

/** The run's suppressed keys, page by page (a page may repeat keys of an earlier one). */
export function runSuppressedPages(
  redis: Redis,
  search: string,
  runId: string,
  prefix: string = DEFAULT_RUNS_PREFIX,
): AsyncGenerator<string[]> {
  return setPages(redis, runSuppressedKey(search, runId, prefix));
}

export async function dropRunSuppressed(
  redis: Redis,
  search: string,
  runId: string,
  prefix: string = DEFAULT_RUNS_PREFIX,
): Promise<void> {
  await redis.unlink(runSuppressedKey(search, runId, prefix));
}
