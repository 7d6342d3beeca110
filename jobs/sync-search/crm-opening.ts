/**
 * The CRM end of a run, opened while the free count is in flight (open-soon.ts explains why); its preflight
 * (credentials, object, fields) runs beside the free counts and is awaited before the walk's first search request;
 * the CRM's ceiling, as the preflight's answer told it, sizes the split.
 */
import type { AppConfig } from '../../src/config/index.js';
import { openDestination, type CrmEnd } from './open-destination.js';
import { openSoon } from './open-soon.js';
import type { ResolvedSearch } from './resolve-search.js';
import type { SyncDeps } from './run-request.js';
import type { RunSession } from './run-session.js';

export interface CrmOpening {
  /** The CRM end once open. */
  opening: Promise<CrmEnd>;
  /** The CRM end once open and its preflight passed. */
  ready: Promise<CrmEnd>;
  /** Records per second the CRM takes, when its answers told it (null: unknown, or the preflight failed). */
  ceiling: Promise<number | null>;
}

export function openCrmEnd(
  deps: SyncDeps,
  config: AppConfig,
  resolved: ResolvedSearch,
  run: RunSession,
  fullResync: boolean,
): CrmOpening {
  const opening = openSoon(() =>
    openDestination(config, resolved.search, resolved.destination, {
      redis: deps.redis,
      prefix: deps.prefix,
      logger: run.logger,
      fullResync,
    }),
  );
  const ready = opening.then(async (crm) => {
    await crm.sink.preflight(crm.mapping, { signal: run.signal });
    return crm;
  });
  ready.catch(() => undefined); // awaited before the walk, or never when the plan refuses the run
  const ceiling = ready.then(
    (crm) => crm.sink.ceiling?.() ?? null,
    () => null,
  );
  return { opening, ready, ceiling };
}
