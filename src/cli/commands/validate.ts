/**
 * `prospect-sync validate [--config f] [--online] [--json]`: loads and checks the config; exit 0 ok, 2 invalid.
 * Problems go to stderr one per line (`file:line:column path: message`); `--json` prints one JSON object instead.
 * `--online` exchanges the API's credentials, asks its dictionaries through the real source client, sends each search's
 * filter once as a count (no token: an unknown key or value is reported at its line) and runs each search's CRM
 * preflight (credentials, object, mapped fields, match field, required fields; no search request), so it needs Redis
 * (exit 4 without it); a refused credential or a mapping the CRM cannot take is a config error, exit 2.
 */
import { checkFilterBodies, checkFilterValues, ConfigError, formatIssue } from '../../config/index.js';
import { readConfig, resolveConfigPath } from '../../config/index.js';
import type { BodyProblem, ConfigIssue, DictionaryLookup, LoadedConfig } from '../../config/index.js';
import { cachedEntries } from '../dictionary-lookup.js';
import { askFilter } from '../filter-issues.js';
import type { ConfigOption, JsonOption } from '../command-context.js';
import { EXIT } from '../exit-codes.js';
import { crmPreflightIssues, sourceAuthIssues } from '../preflight-issues.js';
import { connectRedis } from '../redis-connect.js';
import { nounCount } from '../../shared/noun-count.js';
import { evictionPolicy, RedisEvictionPolicyError, REQUIRED_POLICY } from '../../shared/redis-eviction.js';

export interface ValidateOptions extends ConfigOption, JsonOption {
  online?: boolean;
}

/** What `--online` asks the remotes: Redis's eviction policy, the API's token and dictionaries, each CRM preflight. */
interface OnlineChecks {
  redisPolicy(): Promise<string | null>;
  authenticate(): Promise<void>;
  lookup: DictionaryLookup;
  /** What the API refuses in search `index`'s filter (one count: no token). */
  askFilter(index: number): Promise<BodyProblem[]>;
  preflight(search: string): Promise<void>;
}

/** The remotes through the real source client and CRM sinks (rate-limited and authenticated like any run). */
async function withOnlineChecks<T>(loaded: LoadedConfig, use: (checks: OnlineChecks) => Promise<T>): Promise<T> {
  // Loaded only for --online: the offline check needs none of the sync code.
  const [{ openSource, preflightSearch }, { queuePrefix }, { silentLogger }] = await Promise.all([
    import('../../../jobs/sync-search/index.js'),
    import('../../queue/queue-context.js'),
    import('../../shared/logger.js'),
  ]);
  const redis = await connectRedis();
  // Same namespace as the workers': dictionary calls count against the account's shared rate limit.
  const prefix = queuePrefix();
  const client = openSource(loaded.config, redis, prefix, silentLogger);
  const entries = cachedEntries(client, redis, prefix);
  try {
    return await use({
      redisPolicy: () => evictionPolicy(redis),
      authenticate: () => client.authenticate(),
      lookup: async (name) => (await entries(name)).map((e) => e.value),
      askFilter: (index) => askFilter(client, loaded, index),
      preflight: (search) => preflightSearch(loaded.config, search, { redis, prefix, logger: silentLogger }),
    });
  } finally {
    await client.close();
    redis.disconnect();
  }
}

/**
 * Redis's eviction policy (the workers refuse to start on any but noeviction), the API's credentials (nothing else
 * can be asked without them), then filter values, each filter as the API reads it, and CRM preflights.
 */
function onlineIssues(loaded: LoadedConfig): Promise<ConfigIssue[]> {
  return withOnlineChecks(loaded, async (checks) => {
    const policy = await checks.redisPolicy();
    const redis =
      policy === null || policy === REQUIRED_POLICY
        ? []
        : [{ file: loaded.file, line: 0, column: 0, path: '', message: new RedisEvictionPolicyError(policy).message }];
    const refused = await sourceAuthIssues(loaded, checks.authenticate);
    if (refused.length > 0) return [...redis, ...refused];
    const values = await checkFilterValues(loaded, checks.lookup);
    return [
      ...redis,
      ...values,
      ...(await checkFilterBodies(loaded, checks.askFilter, values)),
      ...(await crmPreflightIssues(loaded, checks.preflight)),
    ];
  });
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
    loaded = await readConfig({ path: file, dashboard: false });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    report(json, file, error.issues, [], '');
    return EXIT.config;
  }
  const { config } = loaded;
  let issues: ConfigIssue[] = [];
  if (opts.online) issues = await onlineIssues(loaded);
  const checked = opts.online
    ? ', filters checked by the API, filter values checked against the API dictionaries, CRM fields checked'
    : '';
  const summary =
    `${file}: valid ` +
    `(${nounCount(config.searches.length, 'search', 'searches')}, ` +
    `${nounCount(Object.keys(config.destinations).length, 'destination')}${checked})`;
  report(json, file, issues, loaded.warnings, summary);
  return issues.length === 0 ? EXIT.ok : EXIT.config;
}
