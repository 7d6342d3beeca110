/**
 * `prospect-sync validate [--config f] [--online] [--json]`: loads and checks the config; exit 0 ok, 2 invalid.
 * Problems go to stderr one per line (`file:line:column path: message`); `--json` prints one JSON object instead.
 */
import { parseArgs } from 'node:util';
import { checkFilterValues, ConfigError, formatIssue, readConfig, resolveConfigPath } from '../../config/index.js';
import type { ConfigIssue, DictionaryLookup, LoadedConfig } from '../../config/index.js';
import { EXIT } from '../exit-codes.js';

/** Dictionary values through the real source client (rate-limited and authenticated like any run). */
async function withSourceDictionaries<T>(loaded: LoadedConfig, use: (lookup: DictionaryLookup) => Promise<T>): Promise<T> {
  const [{ openSource }, { createRedis }, { queuePrefix }, { silentLogger }] = await Promise.all([
    import('../../../jobs/sync-search/open-source.js'),
    import('../../shared/redis.js'),
    import('../../queue/index.js'),
    import('../../shared/logger.js'),
  ]);
  const redis = createRedis(undefined, { maxRetriesPerRequest: 3 });
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

export async function runCommand(argv: string[]): Promise<number> {
  let values: { config?: string; online?: boolean; json?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { config: { type: 'string' }, online: { type: 'boolean' }, json: { type: 'boolean' } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    process.stderr.write(`prospect-sync validate: ${(error as Error).message}\nusage: prospect-sync validate [--config <file>] [--online] [--json]\n`);
    return EXIT.usage;
  }
  const file = resolveConfigPath(values.config);
  const json = values.json === true;
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
  if (values.online) issues = await withSourceDictionaries(loaded, (lookup) => checkFilterValues(loaded, lookup));
  const checked = values.online ? ', filter values checked against the API dictionaries' : '';
  const summary = `${file}: valid (${config.searches.length} searches, ${Object.keys(config.destinations).length} destinations${checked})`;
  report(json, file, issues, loaded.warnings, summary);
  return issues.length === 0 ? EXIT.ok : EXIT.config;
}
