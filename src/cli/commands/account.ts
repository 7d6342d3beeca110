/**
 * `account [--json]`: the package as the worker knows it: the limits every governor learned per remote and operation
 * (the Sales-Intelligence API and the CRMs alike) and when, the search-token balance, allotment and reset, credits
 * today against the caps, and the account's read-only settings (compliance, personalization, intent topics: three
 * GETs counted in the `dictionary` operation). The settings paths are not in the API spec: one the API does not serve
 * is shown as unavailable with its config key, and the rest still shows. Spends no search tokens and no credits.
 * Exit 0, 2 config error.
 */
import type { TokenBalance } from '../../source/budget-ledger.js';
import { SourceHttpError, type SourceClient } from '../../source/index.js';
import { configTimeZone, type AppConfig } from '../../config/index.js';
import { whenIn } from '../../shared/when.js';
import { listGovernorSnapshots, type GovernorSnapshot } from '../../shared/governor-snapshots.js';
import { printJson, withSourceCommand, type ConfigOption, type JsonOption } from '../command-context.js';
import { EXIT } from '../exit-codes.js';

const SETTINGS = ['compliance', 'personalization', 'intentTopics'] as const;

interface AccountLimit {
  remote: string;
  account: string;
  operation: string;
  limit: number | null;
  windowSeconds: number | null;
  source: 'headers' | 'fallback' | null;
  learnedAt: string | null;
  daily: { limit: number; remaining: number } | null;
}

export interface AccountView {
  account: string;
  limits: AccountLimit[];
  tokens: { limit: number; remaining: number; resetAt: string; observedAt: string } | null;
  credits: {
    today: number;
    total: number;
    maxPerDay: number | null;
    maxPerRun: number | null;
    leftToday: number | null;
  };
  /** A setting's data; null when its path is not served (listed in `settingsUnavailable`). */
  settings: Record<SettingName, unknown>;
  settingsUnavailable: UnavailableSetting[];
}

type SettingName = (typeof SETTINGS)[number];

interface UnavailableSetting {
  name: SettingName;
  path: string;
  configKey: string;
  status: number;
}

/** Statuses of a path the API does not serve at all. */
const NOT_SERVED = new Set([404, 405, 501]);

const iso = (ms: number): string => new Date(ms).toISOString();

function limitOf(g: GovernorSnapshot): AccountLimit {
  return {
    remote: g.remote,
    account: g.account,
    operation: g.operation,
    limit: g.limit,
    windowSeconds: g.windowMs === null ? null : g.windowMs / 1000,
    source: g.mode,
    learnedAt: g.learnedAt == null ? null : iso(g.learnedAt),
    daily: g.daily ? { limit: g.daily.limit, remaining: g.daily.remaining } : null,
  };
}

const tokensOf = (t: TokenBalance | null): AccountView['tokens'] =>
  t ? { limit: t.limit, remaining: t.remaining, resetAt: iso(t.resetAt), observedAt: iso(t.observedAt) } : null;

async function accountView(
  source: SourceClient,
  paths: AppConfig['source']['paths']['settings'],
  snapshots: GovernorSnapshot[],
): Promise<AccountView> {
  const [balance, usage] = await Promise.all([source.ledger.tokenBalance(), source.ledger.creditUsage('')]);
  const settings = {} as AccountView['settings'];
  const settingsUnavailable: UnavailableSetting[] = [];
  for (const name of SETTINGS) {
    try {
      settings[name] = await source.settings(name);
    } catch (error) {
      if (!(error instanceof SourceHttpError && NOT_SERVED.has(error.status ?? 0))) throw error;
      settings[name] = null;
      const configKey = `source.paths.settings.${name}`;
      settingsUnavailable.push({ name, path: paths[name], configKey, status: error.status ?? 0 });
    }
  }
  return {
    account: source.accountKey,
    limits: snapshots
      .map(limitOf)
      .sort((a, b) => `${a.remote}:${a.operation}`.localeCompare(`${b.remote}:${b.operation}`)),
    tokens: tokensOf(balance),
    credits: {
      today: usage.day,
      total: usage.account,
      maxPerDay: usage.maxPerDay,
      maxPerRun: usage.maxPerRun,
      leftToday: usage.maxPerDay === null ? null : Math.max(0, usage.maxPerDay - usage.day),
    },
    settings,
    settingsUnavailable,
  };
}

function settingLine(v: AccountView, name: SettingName): string {
  const missing = v.settingsUnavailable.find((u) => u.name === name);
  const shown = missing
    ? `unavailable: GET ${missing.path} answered ${missing.status}; set ${missing.configKey} to the path your API ` +
      `serves`
    : JSON.stringify(v.settings[name]);
  return `${name.padEnd(10)} ${shown}`;
}

function render(v: AccountView, timeZone: string | undefined): string {
  const limits =
    v.limits.length === 0
      ? ['  none learned yet (no request made)']
      : v.limits.map(
          (l) =>
            `  ${l.remote} ${l.operation}: ${l.limit ?? '?'} per ${l.windowSeconds ?? '?'}s ` +
            `(${l.source === 'headers' ? 'learned from headers' : (l.source ?? 'unknown')}` +
            `${l.learnedAt ? `, ${l.learnedAt}` : ''})` +
            `${l.daily ? `; daily ${l.daily.remaining} of ${l.daily.limit} left` : ''}`,
        );
  const t = v.tokens;
  const c = v.credits;
  const resets = t ? (timeZone ? whenIn(Date.parse(t.resetAt), timeZone) : t.resetAt) : undefined;
  const tokens = t
    ? `${t.remaining} of ${t.limit} (allotment) left, resets ${resets} (as of ${t.observedAt})`
    : 'unknown (no search made yet this period)';
  const today = c.maxPerDay === null ? ' (no daily cap)' : ` of ${c.maxPerDay} (${c.leftToday} left)`;
  return [
    `account ${v.account}`,
    'limits',
    ...limits,
    `tokens     ${tokens}`,
    `credits    ${c.today} today${today}, ${c.total} in ` +
      `total${c.maxPerRun === null ? '' : `; at most ${c.maxPerRun} per run`}`,
    ...SETTINGS.map((name) => settingLine(v, name)),
  ].join('\n');
}

export async function runCommand(opts: ConfigOption & JsonOption): Promise<number> {
  return withSourceCommand(opts.config, async ({ config, redis, prefix, source }) => {
    const view = await accountView(source, config.source.paths.settings, await listGovernorSnapshots(redis, prefix));
    if (opts.json) printJson(view);
    else process.stdout.write(`${render(view, configTimeZone(config.searches))}\n`);
    return EXIT.ok;
  });
}
