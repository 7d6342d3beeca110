import type { Entity } from './api-terms.js';

/** Paths relative to `baseUrl` (which may carry a prefix such as `/api/v2`). */
export interface ApiPaths {
  search: Record<Entity, string>;
  count: Record<Entity, string>;
  /** Template with `{name}`. */
  dictionaries: string;
  settings: { compliance: string; personalization: string; intentTopics: string };
  health: string;
}

/** Defaults from docs/api-assumptions.md; every one can be overridden through `SourceClientOptions.paths`. */
export const DEFAULT_PATHS: ApiPaths = {
  search: { companies: '/companies/filter', persons: '/persons/filter' },
  count: { companies: '/companies/filter/count', persons: '/persons/filter/count' },
  dictionaries: '/dictionaries/{name}',
  settings: {
    compliance: '/settings/compliance',
    personalization: '/settings/personalization',
    intentTopics: '/settings/intent-topics',
  },
  health: '/health',
};

export function resolvePaths(overrides: Partial<ApiPaths> | undefined): ApiPaths {
  return {
    search: { ...DEFAULT_PATHS.search, ...overrides?.search },
    count: { ...DEFAULT_PATHS.count, ...overrides?.count },
    dictionaries: overrides?.dictionaries ?? DEFAULT_PATHS.dictionaries,
    settings: { ...DEFAULT_PATHS.settings, ...overrides?.settings },
    health: overrides?.health ?? DEFAULT_PATHS.health,
  };
}

/** Joins a base URL that may carry a path prefix (`http://h:1/api/v2`) with an API path. */
export function joinUrl(baseUrl: string, path: string): URL {
  const base = baseUrl.endsWith('/') ? baseUrl.slice(0, -1) : baseUrl;
  return new URL(`${base}${path.startsWith('/') ? path : `/${path}`}`);
}
