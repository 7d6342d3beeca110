/**
 * A search's CRM preflight outside a run (`validate --online`): the destination opened as a run opens it, its
 * `preflight` (the same check a run makes before its first search request, sharing its per-process cache), closed.
 */
import type { Redis } from 'ioredis';
import type { AppConfig } from '../../src/config/index.js';
import type { Logger } from '../../src/shared/logger.js';
import { openDestination } from './open-destination.js';
import { resolveSearch } from './resolve-search.js';

export async function preflightSearch(
  config: AppConfig,
  name: string,
  deps: { redis: Redis; prefix: string; logger: Logger; signal?: AbortSignal },
): Promise<void> {
  const resolved = resolveSearch(config, name);
  const destination = await openDestination(config, resolved.search, resolved.destination, deps);
  try {
    await destination.sink.preflight(destination.mapping, deps.signal ? { signal: deps.signal } : {});
  } finally {
    await destination.sink.close();
  }
}
