/**
 * `plan <search> [--json]`: what a run would cost, from the free count: pages, tokens, credits, partitions and the
 * estimated time, against the budget left; what runs learned of the destination's limits from its answers; and the
 * search's mirror (members, pending leavers, members not in its list yet, the last complete run's churn), the CRM
 * asked only who it is. Spends no search tokens and no credits. Exit 0, 2 config error.
 */
import { randomUUID } from 'node:crypto';
import {
  CONFIG_ERROR_CODES,
  errorInfo,
  mirrorState,
  openSource,
  planNextRun,
  resolveSearch,
  type MirrorState,
  type RunPlan,
} from '../../../jobs/sync-search/index.js';
import { searchTimeZone } from '../../config/index.js';
import type { RefreshState } from '../../runs/refresh-registry.js';
import { destinationCeiling, destinationLimits } from '../../crm/index.js';
import type { GovernorSnapshot } from '../../shared/governor-snapshots.js';
import { silentLogger } from '../../shared/logger.js';
import { nounCount } from '../../shared/noun-count.js';
import { whenIn } from '../../shared/when.js';
import { openSearchCommand, printJson, type ConfigOption, type JsonOption } from '../command-context.js';
import { EXIT } from '../exit-codes.js';
import { filterRefusal } from '../filter-issues.js';

function duration(ms: number): string {
  const s = Math.ceil(ms / 1000);
  return s < 120 ? `${s}s` : s < 7200 ? `${Math.round(s / 60)}min` : `${(s / 3600).toFixed(1)}h`;
}

const at = (ms: number | null | undefined): string => (ms ? new Date(ms).toISOString() : 'unknown');

/** One line per governed operation of the destination: its learned window limit and daily allowance, and when. */
function crmLimitLines(type: string, learned: GovernorSnapshot[], assumedCeiling: number | null): string[] {
  const lines = learned.flatMap((g) => {
    const parts: string[] = [];
    if (g.limit !== null && g.windowMs !== null && g.mode === 'headers') {
      parts.push(
        `${g.limit} requests per ${g.windowMs / 1000}s (learned from its answers, last ${at(g.learnedAt)}; ` +
          `changed ${at(g.changedAt)})`,
      );
    }
    if (g.daily) parts.push(`daily ${g.daily.limit} requests, ${g.daily.remaining} left at ${at(g.daily.at)}`);
    return parts.length > 0 ? [`  crm limits   ${type} ${g.operation}: ${parts.join('; ')}`] : [];
  });
  if (lines.length > 0) return lines;
  const assumed =
    assumedCeiling === null ? '' : `: assumed ${Math.round(assumedCeiling)} records/s until its first answer`;
  return [`  crm limits   ${type}: nothing learned yet${assumed}`];
}

/** How long the mirror's lines wait on the CRM's identity call before the plan prints without them. */
const MIRROR_DEADLINE_MS = 20_000;

type MirrorResult = { state: MirrorState } | { error: { code: string; message: string } };

const PENDING_WHY: Record<NonNullable<MirrorState['pendingBecause']>, string> = {
  leave_guard: 'held back by the leave guard',
  leave_refused: 'the CRM refused their onLeave',
  list_refused: 'the list refused the last run',
};

/** The mirror's lines: its state now and the churn the last complete run had; the exact forecast is a dry run. */
function mirrorLines(search: string, mirror: MirrorResult): string[] {
  if ('error' in mirror)
    return [`  mirror       unknown: the CRM did not say who it is (${mirror.error.code}: ${mirror.error.message})`];
  const m = mirror.state;
  const why = m.pendingBecause
    ? ` (${PENDING_WHY[m.pendingBecause]}; \`prospect-sync leavers ${search}\` lists them)`
    : m.leaversPending > 0
      ? ` (\`prospect-sync leavers ${search}\` lists them)`
      : '';
  const onLeave =
    typeof m.onLeave === 'string' ? m.onLeave : `setFields ${Object.keys(m.onLeave.setFields).join(', ')}`;
  const lines = [
    `  mirror       ${nounCount(m.members, 'member')} in ${m.instance}, ${m.leaversPending} leavers ` +
      `pending${why}; onLeave: ${onLeave}`,
  ];
  if (m.list)
    lines.push(
      `  list         ${m.list.name}: ${m.list.unlisted} members not in it yet (added after the next complete run)`,
    );
  const c = m.lastComplete;
  const list =
    c?.listAdded === null || c?.listAdded === undefined
      ? ''
      : `, list added ${c.listAdded}, removed ${c.listRemoved ?? 0}`;
  lines.push(
    c
      ? `  churn        last complete run ${c.finishedAt}: entered ${c.entered}, left ${c.left}, leave ` +
          `actions ${c.leaveActions}${list} (the churn to expect)`
      : '  churn        no complete run yet: the first one makes every match a member',
  );
  lines.push(
    `  exact        the next run's entered, left, list adds and removes: \`prospect-sync run ${search} ` +
      `--dry-run\` (walks: tokens, no credit; writes nothing)`,
  );
  return lines;
}

/** Refresh mode `changed`: what the next run walks of the search and why, against a full walk. */
function refreshLine(plan: RunPlan, r: RefreshState | undefined): string[] {
  if (!r) return [];
  if (r.rebuilt)
    return [
      `  refresh      changed: walks every partition of a new split (${r.rebuilt}); later runs walk what ` +
        `changed and their share`,
    ];
  const walked = r.walked.changed + r.walked.stale;
  return [
    `  refresh      changed: walks ${walked} of ${r.kept} partitions (count changed ${r.walked.changed}, ` +
      `stalest ${r.walked.stale}), skips ${r.skipped.length}: ${plan.target} tokens of ${plan.counted} for a full ` +
      `walk`,
  ];
}

function render(
  plan: RunPlan,
  balance: { remaining: number; resetAt: number } | null,
  crm: string[],
  refresh: RefreshState | undefined,
  timeZone: string | undefined,
): string {
  const n = (v: number | null): string => (v === null ? 'unknown (no search made yet this period)' : String(v));
  const resets = balance && (timeZone ? whenIn(balance.resetAt, timeZone) : new Date(balance.resetAt).toISOString());
  const revealed =
    plan.forecastRevealSkipped > 0 ? ` (${plan.forecastRevealSkipped} persons already revealed: no credit)` : '';
  const lines = [
    `plan for ${plan.search} (${plan.entity})`,
    `  matches      ${plan.counted}` +
      `${plan.target < plan.counted && !refresh ? `  (this run takes ${plan.target}: maxRecords)` : ''}`,
    ...refreshLine(plan, refresh),
    `  pages        ${plan.pages} of up to ${plan.pageSize} records`,
    `  partitions   ${plan.partitions.length}, largest first ` +
      `(${nounCount(plan.countRequests, 'count request')}); ${nounCount(plan.parallelism, 'journey')} at first, ` +
      `re-sized during the run (at most ${plan.maxParallelism})`,
    `  tokens       ${plan.tokensNeeded} needed, ${n(plan.tokensSpendable)} may be ` +
      `spent${balance ? ` (balance ${balance.remaining}, resets ${resets})` : ''}`,
    `  credits      ${plan.creditsNeeded} ` +
      `needed${plan.creditsNeeded > 0 ? `, ${plan.creditsSpendable ?? 'no cap'} may be spent` : ''}`,
    `  forecast     ${plan.forecastCredits} credits, ${plan.forecastTokens} tokens${revealed}  ` +
      `[${plan.forecastMethod}]`,
    `  time         ~${duration(plan.estimatedMs)} at ${plan.rate.requests} searches ` +
      `per ${plan.rate.windowSeconds}s ` +
      `(${plan.rate.source === 'headers' ? 'learned from the API' : 'configured fallback'})`,
    plan.shortfall
      ? `  budget       NOT enough ${plan.shortfall}: a run stops at ${plan.bindingCap ?? 'the cap'} (partial), ` +
        `or is refused with onShortfall: refuse`
      : '  budget       enough for the whole run',
    ...crm,
  ];
  return lines.join('\n');
}

/** Errors (a refused secret, an invalid filter) are thrown and reported by the program (exit 2 or 1). */
export async function runCommand(name: string, opts: ConfigOption & JsonOption): Promise<number> {
  const cmd = await openSearchCommand(name, opts.config);
  const source = openSource(cmd.config, cmd.redis, cmd.prefix, silentLogger);
  try {
    const resolved = resolveSearch(cmd.config, cmd.search);
    const { plan, refresh } = await planNextRun(
      { config: cmd.config, redis: cmd.redis, prefix: cmd.prefix },
      source,
      resolved,
      `plan-${randomUUID()}`,
    ).catch((error: unknown) => {
      throw filterRefusal(error, cmd.loaded, cmd.search);
    });
    const balance = await source.ledger.tokenBalance();
    const crmLimits = await destinationLimits(resolved.destination, cmd.redis, cmd.prefix);
    // After the limits are read: the identity call below is an answer the governor learns from.
    const mirror: MirrorResult = await mirrorState(
      { config: cmd.config, redis: cmd.redis, prefix: cmd.prefix, logger: silentLogger },
      cmd.search,
      AbortSignal.timeout(MIRROR_DEADLINE_MS),
    ).then(
      (state) => ({ state }),
      (err: unknown) => ({ error: errorInfo(err) }),
    );
    if (opts.json) {
      printJson({
        ...plan,
        partitions: plan.partitions.map((p) => ({ count: p.count, headcount: p.headcount })),
        tokenBalance: balance,
        ...(refresh
          ? {
              refresh: {
                mode: 'changed',
                kept: refresh.kept,
                walked: refresh.walked,
                skipped: refresh.skipped.length,
                fullTokens: plan.counted,
                ...(refresh.rebuilt ? { rebuilt: refresh.rebuilt } : {}),
              },
            }
          : {}),
        crmLimits: crmLimits.map((g) => ({
          operation: g.operation,
          limit: g.limit,
          windowMs: g.windowMs,
          mode: g.mode,
          learnedAt: g.learnedAt ?? null,
          changedAt: g.changedAt ?? null,
          daily: g.daily ?? null,
        })),
        mirror: 'state' in mirror ? mirror.state : null,
        ...('error' in mirror ? { mirrorError: mirror.error } : {}),
      });
    } else {
      const crm = crmLimitLines(resolved.destination.type, crmLimits, destinationCeiling(resolved.destination));
      const timeZone = searchTimeZone(cmd.config.searches, cmd.search);
      process.stdout.write(
        `${render(plan, balance, [...crm, ...mirrorLines(cmd.search, mirror)], refresh, timeZone)}\n`,
      );
    }
    // The plan printed what it knows; a CRM it could not read still fails the command (a script must not go on).
    if ('error' in mirror) return CONFIG_ERROR_CODES.has(mirror.error.code) ? EXIT.config : EXIT.failed;
    return EXIT.ok;
  } finally {
    await source.close();
    cmd.close();
  }
}
