/**
 * The alert rules as pure functions of what Redis holds: the recent runs of every search and the budget ledger.
 * Each yields one condition per subject (search or account) with `firing` true or false; the state store turns
 * changes of `firing` into alerts. Texts and details hold names, codes and counts only: never a secret, a record
 * id or a contact detail.
 */
import type { AlertsConfig, SavedSearch } from '../config/index.js';
import { forecastAllotment, paceFromHistory, type SearchPaceInput } from '../runs/allotment-forecast.js';
import type { RunSummary } from '../runs/run-summary.js';
import { warningCount } from '../runs/run-warnings.js';
import type { BudgetState } from '../source/budget-states.js';
import { schedulePeriodMs } from './schedule-period.js';

export type AlertRule =
  | 'run_failed'
  | 'run_warnings'
  | 'rejects_share'
  | 'tokens_low'
  | 'credits_low'
  | 'search_stale'
  | 'tokens_exhaust_before_reset';

export interface AlertCondition {
  /** Stable id of rule and subject: the key of its state. */
  id: string;
  rule: AlertRule;
  subject: { search: string } | { account: string };
  firing: boolean;
  /** One line for humans, for the firing state. */
  text: string;
  details: Record<string, string | number | null>;
}

export interface RuleInput {
  rules: AlertsConfig;
  searches: readonly SavedSearch[];
  /** Recent finished runs per search, newest first. */
  runs: ReadonlyMap<string, readonly RunSummary[]>;
  budgets: readonly BudgetState[];
  maxCreditsPerDay: number | undefined;
  /** `source.tokens.reserve`: the projected-exhaustion rule treats it as spent. */
  tokenReserve?: number;
  now: Date;
}

export function evaluateRules(input: RuleInput): AlertCondition[] {
  const { rules, now } = input;
  const out: AlertCondition[] = [];
  for (const search of input.searches) {
    const runs = (input.runs.get(search.name) ?? []).filter((r) => !r.dryRun);
    const last = runs[0];
    const subject = { search: search.name };
    if (rules.runFailed && last) {
      out.push({
        id: `run_failed:${search.name}`,
        rule: 'run_failed',
        subject,
        firing: last.status === 'failed',
        text: `run of ${search.name} failed (${last.error?.code ?? 'unknown error'})`,
        details: {
          status: last.status,
          errorCode: last.error?.code ?? null,
          runId: last.runId,
          finishedAt: last.finishedAt,
        },
      });
    }
    if (rules.warningsAbove !== undefined && last) {
      const warnings = warningCount(last);
      out.push({
        id: `run_warnings:${search.name}`,
        rule: 'run_warnings',
        subject,
        firing: last.status === 'completed' && warnings > rules.warningsAbove,
        text: `run of ${search.name} completed with ${warnings} warnings (threshold ${rules.warningsAbove})`,
        details: {
          warnings,
          threshold: rules.warningsAbove,
          rejected: last.rejected,
          linkErrors: last.linkErrors ?? 0,
          runId: last.runId,
        },
      });
    }
    if (rules.rejectsShareAbove !== undefined && last) {
      const written = last.unique || last.fetched;
      const share = written > 0 ? last.rejected / written : 0;
      out.push({
        id: `rejects_share:${search.name}`,
        rule: 'rejects_share',
        subject,
        firing: share > rules.rejectsShareAbove,
        text:
          `run of ${search.name} rejected ${(share * 100).toFixed(1)}% of its records ` +
          `(threshold ${(rules.rejectsShareAbove * 100).toFixed(1)}%)`,
        details: {
          rejected: last.rejected,
          records: written,
          share: Number(share.toFixed(4)),
          threshold: rules.rejectsShareAbove,
          runId: last.runId,
        },
      });
    }
    if (rules.staleAfterPeriods !== undefined) {
      const period = schedulePeriodMs(search.schedule, now);
      const completed = runs.find((r) => r.status === 'completed');
      // Never completed: counted from the oldest run we still know of; no runs at all says nothing yet.
      const since = completed?.finishedAt ?? runs.at(-1)?.startedAt;
      if (period !== undefined && since !== undefined) {
        const ageMs = now.getTime() - Date.parse(since);
        out.push({
          id: `search_stale:${search.name}`,
          rule: 'search_stale',
          subject,
          firing: ageMs > rules.staleAfterPeriods * period,
          text:
            `${search.name} has not completed for ${Math.round(ageMs / 60_000)} min (more ` +
            `than ${rules.staleAfterPeriods} schedule periods)`,
          details: {
            lastCompletedAt: completed?.finishedAt ?? null,
            periodSeconds: Math.round(period / 1000),
            periods: rules.staleAfterPeriods,
          },
        });
      }
    }
  }
  for (const b of input.budgets) {
    const subject = { account: b.account };
    if (rules.tokensBelow !== undefined && b.tokens && b.tokens.resetAt > now.getTime()) {
      out.push({
        id: `tokens_low:${b.account}`,
        rule: 'tokens_low',
        subject,
        firing: b.tokens.remaining < rules.tokensBelow,
        text:
          `search-token balance ${b.tokens.remaining} is below ${rules.tokensBelow} ` +
          `until ${new Date(b.tokens.resetAt).toISOString()}`,
        details: {
          remaining: b.tokens.remaining,
          limit: b.tokens.limit,
          threshold: rules.tokensBelow,
          resetAt: new Date(b.tokens.resetAt).toISOString(),
        },
      });
    }
    if (rules.tokensExhaustBeforeReset && b.tokens && b.tokens.resetAt > now.getTime()) {
      const f = forecastAllotment({ balance: b.tokens, reserve: input.tokenReserve ?? 0, searches: paces(input), now });
      out.push({
        id: `tokens_exhaust_before_reset:${b.account}`,
        rule: 'tokens_exhaust_before_reset',
        subject,
        firing: f.exhaustsAt !== null,
        text:
          `at this pace the search tokens run out ${f.exhaustsAt ?? 'never'} (run of ${f.exhaustedBy ?? '-'}), ` +
          `before the reset at ${f.resetAt}`,
        details: {
          exhaustsAt: f.exhaustsAt,
          exhaustedBy: f.exhaustedBy,
          remaining: f.remaining,
          limit: f.limit,
          tokensUntilReset: f.tokens,
          resetAt: f.resetAt,
        },
      });
    }
    if (
      rules.creditsLeftTodayBelow !== undefined &&
      input.maxCreditsPerDay !== undefined &&
      input.maxCreditsPerDay > 0
    ) {
      const left = Math.max(0, input.maxCreditsPerDay - b.creditsToday);
      out.push({
        id: `credits_low:${b.account}`,
        rule: 'credits_low',
        subject,
        firing: left < rules.creditsLeftTodayBelow,
        text: `credits left today ${left} of ${input.maxCreditsPerDay} are below ${rules.creditsLeftTodayBelow}`,
        details: {
          left,
          spentToday: b.creditsToday,
          maxPerDay: input.maxCreditsPerDay,
          threshold: rules.creditsLeftTodayBelow,
        },
      });
    }
  }
  return out;
}

/**
 * Paces of the scheduled searches that ran (the rule spends no count: a search never run is left out until it runs).
 */
function paces(input: RuleInput): SearchPaceInput[] {
  return input.searches.flatMap((s) => {
    const pace = s.schedule ? paceFromHistory(input.runs.get(s.name) ?? []) : null;
    return pace ? [{ search: s.name, schedule: s.schedule, pace }] : [];
  });
}
