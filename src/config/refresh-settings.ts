/** A search's refresh settings (docs/runs.md, Refresh on change): its own `refresh:` keys over `source.refresh`. */
import type { AppConfig, SavedSearch } from './schema.js';

export interface RefreshSettings {
  mode: 'changed' | 'full';
  maxAgeDays: number;
  maxCounts: number;
}

export const DEFAULT_REFRESH: RefreshSettings = { mode: 'full', maxAgeDays: 14, maxCounts: 500 };

/**
 * The settings a run of `search` uses. `changed` needs a partitioned walk that ends complete: an offset search (one
 * journey, top-N) and a search capped by `maxRecords` (never complete) walk in full whatever the config says.
 */
export function refreshSettings(
  config: Pick<AppConfig, 'source'>,
  search: Pick<SavedSearch, 'refresh' | 'mode' | 'maxRecords'>,
): RefreshSettings {
  // Configs built in code may lack the block: the schema's defaults then.
  const base = config.source.refresh ?? DEFAULT_REFRESH;
  const own = search.refresh ?? {};
  const mode = own.mode ?? base.mode;
  return {
    mode: mode === 'changed' && search.mode !== 'offset' && search.maxRecords === undefined ? 'changed' : 'full',
    maxAgeDays: own.maxAgeDays ?? base.maxAgeDays,
    maxCounts: own.maxCounts ?? base.maxCounts,
  };
}
