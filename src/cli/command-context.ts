/**
 * What the one-shot commands that name a search (`run`, `plan`, `runs`, `rejects`, `trigger`) share: the config
 * (--config, else $PROSPECT_SYNC_CONFIG, else the default), the search checked against it, and a Redis connection
 * that fails fast. Problems are thrown as typed errors; src/cli/cli-errors.ts prints them and picks the exit code.
 */
import type { Redis } from 'ioredis';
import type { SourceClient } from '../source/index.js';
import { silentLogger } from '../shared/logger.js';
import { loadConfig, readConfig, resolveConfigPath, type AppConfig, type LoadedConfig } from '../config/index.js';
import { queuePrefix } from '../queue/queue-prefix.js';
import { UnknownSearchError } from './cli-errors.js';
import { connectRedis } from './redis-connect.js';

/** Options every config-reading command takes. */
export interface ConfigOption {
  config?: string;
}

/** Commands with machine-readable output: one JSON object as the last stdout line (errors too). */
export interface JsonOption {
  json?: boolean;
}

/** `runs` and `rejects`: how many entries to show (the program supplies the default). */
export interface LimitOption {
  limit: number;
}

export interface SearchCommand {
  search: string;
  config: AppConfig;
  /** The config with where each value is in its file (for errors at a line). */
  loaded: LoadedConfig;
  redis: Redis;
  prefix: string;
  close(): void;
}

/**
 * Loads the config (throws ConfigError with file:line issues) and returns it with the path it came from. Only a
 * command that serves the dashboard (`dashboard: true`) needs the variables of `server` (`DASHBOARD_PASSWORD`).
 */
export async function loadCommandConfig(
  flag: string | undefined,
  { dashboard = false }: { dashboard?: boolean } = {},
): Promise<{ config: AppConfig; path: string }> {
  const path = resolveConfigPath(flag);
  return { config: await loadConfig({ path, dashboard }), path };
}

/** Loads the config, checks `search` is one of its searches, then connects to Redis (RedisUnreachableError). */
export async function openSearchCommand(search: string, configFlag: string | undefined): Promise<SearchCommand> {
  const loaded = await readConfig({ path: resolveConfigPath(configFlag), dashboard: false });
  const { config } = loaded;
  if (!config.searches.some((s) => s.name === search))
    throw new UnknownSearchError(
      search,
      config.searches.map((s) => s.name),
    );
  const redis = await connectRedis();
  return { search, config, loaded, redis, prefix: queuePrefix(), close: () => redis.disconnect() };
}

/** What the commands that ask the API (`account`, `plan --all`, `values`) work with. */
export interface SourceCommand {
  config: AppConfig;
  redis: Redis;
  prefix: string;
  /** The real source client, in the workers' namespace: its calls count against the account's shared limits. */
  source: SourceClient;
}

/** Loads the config, connects to Redis and opens the source client for `use`; closes both after it. */
export async function withSourceCommand<T>(
  configFlag: string | undefined,
  use: (cmd: SourceCommand) => Promise<T>,
): Promise<T> {
  const { config } = await loadCommandConfig(configFlag);
  const redis = await connectRedis();
  const prefix = queuePrefix();
  // Loaded here only: the commands that do not ask the API need none of the sync code.
  const { openSource } = await import('../../jobs/sync-search/index.js');
  const source = openSource(config, redis, prefix, silentLogger);
  try {
    return await use({ config, redis, prefix, source });
  } finally {
    await source.close();
    redis.disconnect();
  }
}

/** Prints `value` as one JSON line (the last stdout line of `--json` commands). */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}
