/**
 * `prospect-sync validate [--config f] [--online] [--json]`: loads and checks the config; exit 0 ok, 2 invalid.
 * Problems go to stderr one per line (`file:line:column path: message`); `--json` prints one JSON object instead.
 * `--online` asks the API's dictionaries through the real source client, so it needs Redis (exit 4 without it) and
 * the API's credentials (a refused secret is a config error, exit 2).
 */
import { checkFilterValues, ConfigError, formatIssue, readConfig, resolveConfigPath } from '../../config/index.js';
import type { ConfigIssue, DictionaryLookup, LoadedConfig } from '../../config/index.js';
import type { ConfigOption, JsonOption } from '../command-context.js';
import { EXIT } from '../exit-codes.js';
import { connectRedis } from '../redis-connect.js';

export interface ValidateOptions extends ConfigOption, JsonOption {
  online?: boolean;
}

/** Dictionary values through the real source client (rate-limited and authenticated like any run). */
async function withSourceDictionaries<T>(loaded: LoadedConfig, use: (lookup: DictionaryLookup) => Promise<T>): Promise<T> {
  // Loaded only for --online: the offline check needs none of the sync code.
  const [{ openSource }, { queuePrefix }, { silentLogger }] = await Promise.all([
    import('../../../jobs/sync-search/index.js'),
    import('../../queue/queue-context.js'),
    import('../../shared/logger.js'),
  ]);
  const redis = await connectRedis();
  // Same namespace as the workers': dictionary calls count against the account's shared rate limit.
  const client = openSource(loaded.config, redis, queuePrefix(), silentLogger);
  try {
    return await use((name) => client.dictionary(name));
  } finally {
    await client.close();
    redis.disconnect();
  }
}

function report(json: boolean, file: string, issues: ConfigIssue[], warnings: ConfigIssue[], summary: string): void {
  if (json) {
    process.stdout.write(`${JSON.stringify({ file, valid: issues.length === 0, issues, warnings })}\n`);
    return;
  }
  for (const warning of warnings) process.stderr.write(`warning: ${formatIssue(warning)}\n`);
  for (const issue of issues) process.stderr.write(`${formatIssue(issue)}\n`);
  if (issues.length === 0) process.stdout.write(`${summary}\n`);
}

export async function runCommand(opts: ValidateOptions): Promise<number> {
  const file = resolveConfigPath(opts.config);
  const json = opts.json === true;
  let loaded: LoadedConfig;
  try {
    loaded = await readConfig({ path: file });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    report(json, file, error.issues, [], '');
    return EXIT.config;
  }
  const { config } = loaded;
  let issues: ConfigIssue[] = [];
  if (opts.online) issues = await withSourceDictionaries(loaded, (lookup) => checkFilterValues(loaded, lookup));
  const checked = opts.online ? ', filter values checked against the API dictionaries' : '';
  const summary = `${file}: valid (${config.searches.length} searches, ${Object.keys(config.destinations).length} destinations${checked})`;
  report(json, file, issues, loaded.warnings, summary);
  return issues.length === 0 ? EXIT.ok : EXIT.config;
}
