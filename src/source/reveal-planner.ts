/**
 * Which persons of a page to reveal and how (pure). A journey walks without `contacts` (tokens only); each run of
 * consecutive persons not revealed yet is revealed by its offset in the walk (`view` with `contacts`, `limit` = run
 * length): one more token and one credit per person. Where no offset reaches (beyond 10,000, or an API whose offset
 * answers differ from its walk) a cursor is positioned at the run (a contacts-free request of `limit` = gap from the
 * last cursor it holds), so the extra tokens of such a page are the index of its last unrevealed person + 1. When a
 * page is predicted to be (almost) all unrevealed (a first run), the page is revealed directly.
 */

/** Reveal a whole page directly when at least this share of it is expected to be unrevealed. */
export const DIRECT_SHARE = 0.95;

/** A run of persons to reveal: page indexes `start..end` inclusive. */
export interface RevealRun {
  start: number;
  end: number;
}

/** Runs of `true` (needs a reveal) in page order. */
export function revealRuns(needs: readonly boolean[]): RevealRun[] {
  const runs: RevealRun[] = [];
  let start = -1;
  needs.forEach((need, i) => {
    if (need && start < 0) start = i;
    if (!need && start >= 0) {
      runs.push({ start, end: i - 1 });
      start = -1;
    }
  });
  if (start >= 0) runs.push({ start, end: needs.length - 1 });
  return runs;
}

/**
 * Expected extra tokens of a page of `size` persons when each is unrevealed with probability `p`, independently:
 * E[index of the last unrevealed + 1] = sum over m = 1..size of (1 - (1 - p)^m).
 */
export function expectedExtraTokens(p: number, size: number): number {
  if (p <= 0) return 0;
  let sum = 0;
  for (let m = 1; m <= size; m++) sum += 1 - (1 - p) ** m;
  return sum;
}

export interface RevealForecastInput {
  /** Persons matching now (free count). */
  counted: number;
  /** Persons the run walks (count capped by maxRecords). */
  target: number;
  pageSize: number;
  /** Journeys walked (each may probe its first page). */
  journeys: number;
  /** Records at positions beyond the largest offset (10,000) in their journeys: revealed by positioned cursors. */
  deepRecords?: number;
  /** Persons the search's last run saw whose reveal is still fresh; null when the search never ran. */
  fresh: number | null;
}

export interface RevealForecast {
  /** Share of the walked persons expected to need a reveal. */
  newShare: number;
  /** Persons expected to be revealed (credits). */
  credits: number;
  /** Persons expected to pass by without a reveal. */
  revealSkipped: number;
  tokens: number;
  method: 'first-run' | 'last-run-tally';
}

/**
 * Method: persons needing a reveal = matches now - persons the last run of this search saw whose reveal is still
 * fresh (its tally by reveal day). Exact without churn; removals since the last run make it an over-estimate.
 * Tokens = walked persons + one per person revealed by offset + per page beyond the largest offset the expected
 * extra tokens above (nothing extra when pages are revealed directly).
 */
export function forecastReveal(input: RevealForecastInput): RevealForecast {
  const { counted, target, pageSize } = input;
  if (counted <= 0 || target <= 0)
    return {
      newShare: 0,
      credits: 0,
      revealSkipped: 0,
      tokens: 0,
      method: input.fresh === null ? 'first-run' : 'last-run-tally',
    };
  const newPersons = input.fresh === null ? counted : Math.max(0, counted - input.fresh);
  const newShare = Math.min(1, newPersons / counted);
  const method = input.fresh === null ? 'first-run' : 'last-run-tally';
  if (newShare >= DIRECT_SHARE) return { newShare, credits: target, revealSkipped: 0, tokens: target, method };
  const credits = Math.round(target * newShare);
  const deep = Math.min(target, Math.max(0, input.deepRecords ?? 0));
  const byOffset = Math.round((target - deep) * newShare);
  const extraDeep = (deep / pageSize) * expectedExtraTokens(newShare, pageSize);
  return {
    newShare,
    credits,
    revealSkipped: target - credits,
    tokens: Math.round(target + byOffset + extraDeep),
    method,
  };
}

/** What `prepareReveal` expects a run to spend (see reveal-planner.ts for the method). */
export interface RevealPlan {
  newShare: number;
  credits: number;
  revealSkipped: number;
  tokens: number;
  method: 'first-run' | 'last-run-tally';
}
