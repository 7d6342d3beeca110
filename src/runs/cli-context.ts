/**
 * What the run-related commands (`run`, `plan`, `runs`, `rejects`) share: argument parsing with one positional
 * search name, config loading (exit 2 with file:line messages) and a fail-fast Redis connection.
 */
import { parseArgs } from 'node:util';
import type { Redis } from 'ioredis';
import { ConfigError, loadConfig, resolveConfigPath, type AppConfig } from '../config/index.js';
import { queuePrefix } from '../queue/queue-context.js';
import { createRedis } from '../shared/redis.js';

export type CommandFlags = Record<string, { type: 'string' | 'boolean' }>;

export interface SearchCommand<V> {
  search: string;
  values: V & { config?: string; json?: boolean };
  config: AppConfig;
  redis: Redis;
  prefix: string;
  close(): void;
}

/**
 * Parses `<search> [flags]`, loads the config and checks the search exists. Returns the exit code (2) after
 * printing the problem when any of that fails.
 */
export async function openSearchCommand<V>(argv: string[], flags: CommandFlags, usage: string): Promise<SearchCommand<V> | number> {
  let parsed: { values: Record<string, unknown>; positionals: string[] };
  try {
    parsed = parseArgs({ args: argv, options: { config: { type: 'string' }, json: { type: 'boolean' }, ...flags }, allowPositionals: true, strict: true });
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${usage}`);
    return 2;
  }
  const [search, ...extra] = parsed.positionals;
  if (!search || extra.length > 0) {
    process.stderr.write(usage);
    return 2;
  }
  const values = parsed.values as V & { config?: string; json?: boolean };
  const loaded = await loadCommandConfig(values.config);
  if (typeof loaded === 'number') return loaded;
  const { config } = loaded;
  if (!config.searches.some((s) => s.name === search)) {
    process.stderr.write(`unknown search '${search}' (known: ${config.searches.map((s) => s.name).join(', ')})\n`);
    return 2;
  }
  // Fail fast when Redis is down instead of queueing commands forever.
  const redis = createRedis(undefined, { maxRetriesPerRequest: 1, retryStrategy: () => null });
  redis.on('error', () => undefined);
  return { search, values, config, redis, prefix: queuePrefix(), close: () => redis.disconnect() };
}

/** Loads `--config` (else $PROSPECT_SYNC_CONFIG, else the default); on a config error prints it and returns 2. */
export async function loadCommandConfig(flag: string | undefined): Promise<{ config: AppConfig; path: string } | number> {
  const path = resolveConfigPath(flag);
  try {
    return { config: await loadConfig({ path }), path };
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      return 2;
    }
    throw err;
  }
}

/** Prints `value` as one JSON line (the last stdout line of `--json` commands). */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}
