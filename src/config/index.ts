/**
 * Configuration: YAML loading with ${ENV} interpolation, zod schemas, cross-field rules, errors with file:line.
 * Knows nothing about the rest of prospect-sync.
 */
export { loadConfig, readConfig, parseConfig, resolveConfigPath } from './load-config.js';
export type { LoadOptions, LoadedConfig } from './load-config.js';
export { ConfigError, formatIssue } from './config-error.js';
export type { ConfigIssue } from './config-error.js';
export { configJsonSchema } from './json-schema.js';
export { configTimeZone, parseEvery, scheduleTimeZone, searchTimeZone } from './schedule.js';
export { refreshSettings, DEFAULT_REFRESH, type RefreshSettings } from './refresh-settings.js';
export { checkFilterBodies, checkFilterValues, filterIssues } from './online-check.js';
export { formatPath } from './yaml-tree.js';
export { configCredentialHint, withCredentialHint } from './credential-hint.js';
export type { BodyProblem, DictionaryLookup } from './online-check.js';
export type {
  AppConfig,
  SourceConfig,
  SourcePaths,
  DestinationConfig,
  SavedSearch,
  SearchFilter,
  FieldMapping,
  ServerConfig,
  WorkerConfig,
  AlertsConfig,
  PersonSegment,
} from './schema.js';
