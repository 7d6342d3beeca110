/** Loads the YAML config: parse with positions -> interpolate -> schema -> cross-field rules. */
import { readFile } from 'node:fs/promises';
import type { ConfigIssue } from './config-error.js';
import { ConfigError } from './config-error.js';
import { rememberVariables } from './credential-hint.js';
import { crossCheck } from './cross-checks.js';
import type { PathIssue } from './path-issue.js';
import { configSchema, type AppConfig } from './schema.js';
import { resolveSuppress } from './suppress-settings.js';
import { formatPath, readYamlTree, valueAt, type Locate } from './yaml-tree.js';
import { fromZodIssues } from './zod-issues.js';

const DEFAULT_CONFIG_PATH = 'config/prospect-sync.yaml';

export interface LoadOptions {
  /** The config file; default: resolveConfigPath(undefined, env). */
  path?: string;
  /** Where ${VAR}s come from; default process.env. */
  env?: NodeJS.ProcessEnv;
  /**
   * Whether the caller serves the dashboard (default true). False: an unset variable under `server` is a warning
   * and leaves its block out (`run` needs no `DASHBOARD_PASSWORD`).
   */
  dashboard?: boolean;
}

/** A loaded config plus where each of its values is in the file (for later checks such as `validate --online`). */
export interface LoadedConfig {
  config: AppConfig;
  file: string;
  locate: Locate;
  /** Things that load but are probably not what was meant (printed by `validate`). */
  warnings: ConfigIssue[];
  /** Each secret's config path -> the variable it came from (`HUBSPOT_TOKEN`), for credential errors. */
  variables: ReadonlyMap<string, string>;
}

/** `--config`, else `$PROSPECT_SYNC_CONFIG`, else `config/prospect-sync.yaml`. */
export function resolveConfigPath(flag?: string, env: NodeJS.ProcessEnv = process.env): string {
  return flag || env.PROSPECT_SYNC_CONFIG || DEFAULT_CONFIG_PATH;
}

const dashboardOnly = (path: readonly (string | number)[]): string | undefined =>
  path[0] === 'server' ? 'the dashboard (`start`, `dashboard`)' : undefined;

function byPlace(a: ConfigIssue, b: ConfigIssue): number {
  return a.line - b.line || a.column - b.column;
}

/** Parses config text; `file` is only what messages call it. Throws ConfigError listing every problem. */
export function parseConfig(
  text: string,
  file: string,
  env: NodeJS.ProcessEnv = process.env,
  options: Pick<LoadOptions, 'dashboard'> = {},
): LoadedConfig {
  const tree = readYamlTree(text, file, env, options.dashboard === false ? { usedOnlyBy: dashboardOnly } : {});
  const place = (issues: PathIssue[]): ConfigIssue[] =>
    issues.map((issue) => ({
      file,
      ...tree.locate(issue.path, issue.at ?? 'value'),
      path: formatPath(issue.path),
      message: issue.message,
    }));
  if (tree.value === undefined && tree.issues.length > 0) throw new ConfigError(tree.issues);
  if (tree.value === null || typeof tree.value !== 'object' || Array.isArray(tree.value)) {
    throw new ConfigError([
      ...tree.issues,
      { file, line: 1, column: 1, path: '', message: 'expected a mapping with source, destinations, searches' },
    ]);
  }
  const parsed = configSchema().safeParse(tree.value);
  if (!parsed.success) {
    const schemaIssues = place(fromZodIssues(parsed.error.issues, (path) => valueAt(tree.value, path) !== undefined));
    // An interpolation failure already explains the value it left empty.
    const explained = new Set(tree.issues.map((issue) => issue.path));
    const extra = schemaIssues.filter((issue) => !explained.has(issue.path));
    throw new ConfigError([...tree.issues, ...extra].sort(byPlace));
  }
  const checked = crossCheck(parsed.data);
  const issues = [...tree.issues, ...place(checked.issues)].sort(byPlace);
  if (issues.length > 0 || !checked.config) throw new ConfigError(issues);
  const config = withSuppressFiles(checked.config, file);
  rememberVariables(config, tree.variables);
  return {
    config,
    file,
    locate: tree.locate,
    variables: tree.variables,
    warnings: [...tree.warnings, ...place(checked.warnings)].sort(byPlace),
  };
}

/** The config with every `suppress:` file read into its block's lists; a bad file or value throws (file:line). */
function withSuppressFiles(config: AppConfig, file: string): AppConfig {
  const issues: ConfigIssue[] = [];
  const searches = config.searches.map((search) =>
    search.suppress ? { ...search, suppress: resolveSuppress(search.suppress, file, issues) } : search,
  );
  const suppress = { ...resolveSuppress(config.suppress, file, issues), paths: config.suppress.paths };
  if (issues.length > 0) throw new ConfigError(issues);
  return { ...config, suppress, searches };
}

/** Reads and parses the config file, keeping positions. Throws ConfigError (code `config_invalid`). */
export async function readConfig(options: LoadOptions = {}): Promise<LoadedConfig> {
  const env = options.env ?? process.env;
  const file = options.path ?? resolveConfigPath(undefined, env);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : 'cannot read file';
    throw new ConfigError([{ file, line: 0, column: 0, path: '', message: reason }]);
  }
  return parseConfig(text, file, env, options);
}

/** Loads, interpolates and checks the config. Throws ConfigError (code `config_invalid`) with every issue. */
export async function loadConfig(options: LoadOptions = {}): Promise<AppConfig> {
  return (await readConfig(options)).config;
}
