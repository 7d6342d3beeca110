/**
 * `prospect-sync validate [--config f] [--online] [--json]`: loads and checks the config; exit 0 ok, 2 invalid.
 * Problems go to stderr one per line (`file:line:column path: message`); `--json` prints one JSON object instead.
 * `--online` asks the API's dictionaries through the real source client, so it needs Redis (exit 4 without it) and
 * the API's credentials (a refused secret is a config error, exit 2).
 */
import { checkFilterValues, ConfigError, formatIssue, readConfig, resolveConfigPath } from '../../config/index.js';
import type { ConfigIssue, LoadedConfig } from '../../config/index.js';
import { withDictionaries } from '../dictionary-lookup.js';
import type { ConfigOption, JsonOption } from '../command-context.js';
import { EXIT } from '../exit-codes.js';
import { nounCount } from '../../shared/noun-count.js';

export interface ValidateOptions extends ConfigOption, JsonOption {
  online?: boolean;
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
  if (opts.online) issues = await withDictionaries(config, (lookup) => checkFilterValues(loaded, async (name) => (await lookup(name)).map((e) => e.value)));
  const checked = opts.online ? ', filter values checked against the API dictionaries' : '';
  const summary = `${file}: valid (${nounCount(config.searches.length, 'search', 'searches')}, ${nounCount(Object.keys(config.destinations).length, 'destination')}${checked})`;
  report(json, file, issues, loaded.warnings, summary);
  return issues.length === 0 ? EXIT.ok : EXIT.config;
}
