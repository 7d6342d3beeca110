/**
 * What a run will spend: the forecast of tokens and credits the plan makes from the free count and the reveal store,
 * and what a run says it will spend before its first token (a dry run pays no credit).
 */
import type { AppConfig } from '../../src/config/index.js';
import { fingerprintJourney, type SourceClient } from '../../src/source/index.js';
import type { ResolvedSearch } from './resolve-search.js';

/** The plan's forecast of what the run spends (part of RunPlan). */
export interface SpendForecast {
  /**
   * Credits the run is expected to spend: persons not revealed before (or stale), within the credit caps. A dry run
   * spends none: its forecast is a real run's (of the whole search, also under `--sample`).
   */
  forecastCredits: number;
  /** Search tokens the run is expected to spend, including the extra requests that reveal persons one run at a time. */
  forecastTokens: number;
  /** Persons expected to pass by without a reveal (revealed before and still fresh). */
  forecastRevealSkipped: number;
  /**
   * How the forecast was made: `no-contacts`, `first-run` (every person is new) or `last-run-tally` (see docs/runs.md).
   */
  forecastMethod: 'no-contacts' | 'first-run' | 'last-run-tally';
}

/** What a run will spend, said before its first token: a dry run walks without contacts, so it pays no credit. */
export interface RunSpend {
  dryRun: boolean;
  /** Records the walk takes (the count, capped by `maxRecords` or a dry run's `--sample`). */
  records: number;
  tokens: number;
  credits: number;
  /** A dry run of a contacts search: what a real run would spend now, by the plan's forecast. */
  realRun?: { tokens: number; credits: number };
}

export function runSpend(plan: SpendForecast & { target: number }, dryRun: boolean): RunSpend {
  if (!dryRun) return { dryRun, records: plan.target, tokens: plan.forecastTokens, credits: plan.forecastCredits };
  return {
    dryRun,
    records: plan.target,
    tokens: plan.target,
    credits: 0,
    ...(plan.forecastMethod === 'no-contacts'
      ? {}
      : { realRun: { tokens: plan.forecastTokens, credits: plan.forecastCredits } }),
  };
}

/** Key of a search's reveal tally: its name and what it walks (an edited filter starts a new tally). */
export function revealSearchKey(resolved: ResolvedSearch): string {
  return (
    `${resolved.search.name}:` +
    `${fingerprintJourney(resolved.search.entity, JSON.stringify(resolved.search.filter), resolved.view, 'cursor')}`
  );
}

/**
 * Tokens and credits this run is expected to spend. Contacts searches register the run for reveal-once journeys
 * and forecast from the search's last run (persons it saw that are still fresh are not paid again); a credit cap
 * below the forecast stops the run early, so tokens are scaled down with it.
 */
export async function forecastSpend(
  source: SourceClient,
  config: AppConfig,
  resolved: ResolvedSearch,
  runId: string,
  walk: { counted: number; target: number; journeys: number; deepRecords: number },
  creditsSpendable: number | null,
  dryRun: boolean,
): Promise<SpendForecast & { creditsNeeded: number }> {
  const withCredits = resolved.search.entity === 'persons' && resolved.view.includes('contacts');
  if (!withCredits)
    return {
      creditsNeeded: 0,
      forecastCredits: 0,
      forecastTokens: walk.target,
      forecastRevealSkipped: 0,
      forecastMethod: 'no-contacts',
    };
  const r = await source.prepareReveal(
    runId,
    revealSearchKey(resolved),
    { ...walk, pageSize: config.source.pageSize },
    { dryRun, log: { search: resolved.search.name, segment: resolved.search.segment } },
  );
  if (creditsSpendable === null || creditsSpendable >= r.credits || r.credits === 0) {
    return {
      creditsNeeded: r.credits,
      forecastCredits: r.credits,
      forecastTokens: r.tokens,
      forecastRevealSkipped: r.revealSkipped,
      forecastMethod: r.method,
    };
  }
  const share = creditsSpendable / r.credits;
  return {
    creditsNeeded: r.credits,
    forecastCredits: creditsSpendable,
    forecastTokens: Math.round(r.tokens * share),
    forecastRevealSkipped: Math.round(r.revealSkipped * share),
    forecastMethod: r.method,
  };
}
