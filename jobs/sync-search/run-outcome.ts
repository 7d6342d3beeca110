/**
 * How a run ended, decided in one place: its status, stop reason, what happens to its checkpoint and when a delayed
 * run resumes. The input is how the run got there: the plan refused it, the walk returned, or something was thrown.
 *
 * | ending                                          | status    | stopReason        | checkpoint                    |
 * |-------------------------------------------------|-----------|-------------------|-------------------------------|
 * | every partition walked                          | completed | —                 | cleared                       |
 * | walk reached `maxRecords` (distinct records)    | completed | — (`limitedBy:    | cleared                       |
 * |   or a dry run's `--sample`                     |           |   max_records`,   |                               |
 * |                                                 |           |   `sample`)       |                               |
 * | a cap of ours (BudgetStopError)                 | partial   | the cap           | cleared                       |
 * | plan shortfall with `onShortfall: refuse`       | partial   | the binding cap   | none written                  |
 * | tokens used up (402 exhausted, or the ledger    | delayed   | tokens_exhausted  | kept until after the reset    |
 * |   at 0 with no reserve), `resumeAt` = the reset |           |                   |   (6 h to 48 h)               |
 * | stopped from outside (shutdown, lost lock)      | failed    | aborted           | kept (last attempt: cleared)  |
 * | the CRM refused the run (jobs/sync-search/       | failed    | —                 | cleared (no retry: the same   |
 * |   refusal-guard.ts): crm_refused_all / _share   |           |                   |   records are refused again)  |
 * | Redis away or out of memory (redis_unavailable) | failed    | —                 | kept: resumed once Redis      |
 * |                                                 |           |                   |   takes writes again          |
 * | any other error                                 | failed    | —                 | kept (a retry resumes; last   |
 * |                                                 |           |                   |   attempt: cleared)           |
 *
 * The last attempt (`run` in a terminal, a queued run's last try) is resumed by nothing: what it kept would only
 * wait for its TTL, holding Redis memory.
 */
import type { AppConfig } from '../../src/config/index.js';
import { DEFAULT_CHECKPOINT_TTL_MS, type RunCheckpoint } from '../../src/runs/checkpoint-store.js';
import type { RunStatus, StopReason } from '../../src/runs/run-summary.js';
import { BudgetStopError, TokensExhaustedError, type TokenBalance } from '../../src/source/index.js';
import type { RunPlan } from './plan-run.js';
import { CrmRefusedError } from './refusal-errors.js';
import { errorInfo, REDIS_UNAVAILABLE, RunAbortedError } from './run-errors.js';

/** The user's limit of a run's distinct records: the search's `maxRecords`, or a dry run's `--sample`. */
export type RunLimit = 'max_records' | 'sample';

/** What happens to the run's checkpoint: deleted, saved with the store's TTL, or saved for `ttlMs`. */
export type CheckpointFate = { keep: false } | { keep: true; ttlMs?: number };

export interface RunOutcome {
  status: RunStatus;
  stopReason?: StopReason;
  /** The run ended at the user's limit (`maxRecords`, a dry run's `--sample`): completed, not stopped. */
  limitedBy?: RunLimit;
  /** ISO time a delayed run resumes (the budget's reset). */
  resumeAt?: string;
  error?: { code: string; message: string };
  checkpoint: CheckpointFate;
}

export type RunEnding =
  /** The plan showed a shortfall and the search refuses to start a run it cannot finish. */
  | { kind: 'refused'; plan: RunPlan }
  /** The walk returned: `aborted` with partitions left, `capped` when the run's record cap was reached. */
  | { kind: 'walked'; aborted: boolean; capped: boolean }
  | { kind: 'threw'; error: unknown; aborted: boolean };

/** Facts about the account the decision needs: an exhausted balance is a delay only without a reserve. */
export interface OutcomeFacts {
  tokenReserve: number;
  /** Nothing resumes the run if it fails or is stopped (RunRequest.lastAttempt). */
  lastAttempt?: boolean;
  tokenBalance(): Promise<TokenBalance | null>;
}

/** Cursors are not kept long term: a delay longer than this lets the checkpoint expire and the journeys restart. */
const MAX_DELAYED_CHECKPOINT_MS = 48 * 3600_000;

const CLEAR: CheckpointFate = { keep: false };
const KEEP: CheckpointFate = { keep: true };

/** The refusal of a run the budget cannot cover, when its search asks for it (`onShortfall: refuse`); else null. */
export function refusalOf(plan: RunPlan, onShortfall: 'stop' | 'refuse', resumed: boolean): RunEnding | null {
  // A resumed run already started; refusing it now would strand what it paid for.
  return plan.shortfall !== undefined && onShortfall === 'refuse' && !resumed ? { kind: 'refused', plan } : null;
}

/**
 * How the walk ended, from the checkpoint it left. `maxRecords` is the user's limit, the same for cursor and offset
 * searches: the run holds that many distinct records (the first N of the walk's order; the top N of the sort).
 */
export function walkEnding(
  plan: RunPlan,
  ledger: { checkpoint: Readonly<RunCheckpoint> | undefined },
  aborted: boolean,
): RunEnding {
  const checkpoint = ledger.checkpoint;
  if (!checkpoint) return { kind: 'walked', aborted, capped: false };
  return {
    kind: 'walked',
    // a split cut short has partitions still to come
    aborted: aborted && (checkpoint.partitions.some((p) => !p.done) || checkpoint.plan?.complete === false),
    capped: plan.quota !== null && checkpoint.counts.unique >= plan.quota,
  };
}

/** `limit`: what set the run's record cap (the plan's `quotaBy`). */
export async function runOutcome(
  ending: RunEnding,
  facts: OutcomeFacts,
  search: string,
  limit: RunLimit = 'max_records',
): Promise<RunOutcome> {
  const LIMITED: RunOutcome = { status: 'completed', limitedBy: limit, checkpoint: CLEAR };
  const retried = facts.lastAttempt === true ? CLEAR : KEEP;
  switch (ending.kind) {
    case 'walked':
      if (ending.aborted) return aborted(search, retried);
      return ending.capped ? LIMITED : { status: 'completed', checkpoint: CLEAR };
    case 'refused':
      // Not one token may be spent: the same state as the ledger stopping the first page.
      if (ending.plan.tokensSpendable === 0)
        return stopped(
          new BudgetStopError('token_reserve', 'no search tokens may be spent until the budget resets'),
          facts,
        );
      return {
        status: 'partial',
        stopReason: ending.plan.bindingCap ?? 'token_reserve',
        error: shortfallError(ending.plan),
        checkpoint: KEEP,
      };
    case 'threw':
      // A journey that found the shared record cap used up: the run has its N (other journeys wrote what they paid).
      if (ending.error instanceof BudgetStopError && ending.error.cap === 'max_records' && !ending.aborted)
        return LIMITED;
      if (ending.error instanceof TokensExhaustedError || ending.error instanceof BudgetStopError)
        return stopped(ending.error, facts);
      if (ending.aborted) return aborted(search, retried);
      // hook (refusal guard): a run the CRM refused is not retried, so its checkpoint has nothing to resume
      if (ending.error instanceof CrmRefusedError)
        return { status: 'failed', error: errorInfo(ending.error), checkpoint: CLEAR };
      return failed(errorInfo(ending.error), retried);
  }
}

/**
 * A budget stop. The search-token allotment used up is a delay until the reset: a 402 exhausted, or our ledger
 * stopping the journey because the known balance reached zero with no reserve configured (the same state, seen one
 * page earlier). Any other cap of ours (a reserve > 0, credits) ends the run partial, naming the cap.
 */
async function stopped(error: TokensExhaustedError | BudgetStopError, facts: OutcomeFacts): Promise<RunOutcome> {
  const resetAt = await exhaustedUntil(error, facts);
  if (resetAt === null)
    return {
      status: 'partial',
      stopReason: (error as BudgetStopError).cap,
      error: errorInfo(error),
      checkpoint: CLEAR,
    };
  const delayMs = Math.max(0, resetAt.getTime() - Date.now());
  // Kept until a little after the reset, so the run resumes where it was.
  const ttlMs = Math.max(DEFAULT_CHECKPOINT_TTL_MS, Math.min(MAX_DELAYED_CHECKPOINT_MS, delayMs + 3600_000));
  return {
    status: 'delayed',
    stopReason: 'tokens_exhausted',
    resumeAt: resetAt.toISOString(),
    error: errorInfo(error),
    checkpoint: { keep: true, ttlMs },
  };
}

async function exhaustedUntil(
  error: TokensExhaustedError | BudgetStopError,
  facts: OutcomeFacts,
): Promise<Date | null> {
  if (error instanceof TokensExhaustedError) return error.resetAt;
  if (error.cap !== 'token_reserve' || facts.tokenReserve > 0) return null;
  const balance = await facts.tokenBalance();
  return balance && balance.resetAt > Date.now() ? new Date(balance.resetAt) : null;
}

/** Redis away or out of memory: the run goes on once Redis takes writes again, whatever the attempt. */
function failed(error: { code: string; message: string }, retried: CheckpointFate): RunOutcome {
  return { status: 'failed', error, checkpoint: error.code === REDIS_UNAVAILABLE ? KEEP : retried };
}

function aborted(search: string, checkpoint: CheckpointFate): RunOutcome {
  return { status: 'failed', stopReason: 'aborted', error: errorInfo(new RunAbortedError(search)), checkpoint };
}

function shortfallError(plan: RunPlan): { code: string; message: string } {
  const tokens = plan.shortfall === 'tokens';
  const [what, need, have] = tokens
    ? ['search tokens', plan.tokensNeeded, plan.tokensSpendable]
    : ['credits', plan.creditsNeeded, plan.creditsSpendable];
  return {
    code: 'budget_insufficient',
    message:
      `the run needs ${need} ${what} but only ${have} may be spent; nothing was fetched (onShortfall: refuse; set ` +
      `onShortfall: stop to spend up to the cap and stop there)`,
  };
}

/** The facts of a config and source client. */
export function outcomeFacts(
  config: AppConfig,
  ledger: { tokenBalance(): Promise<TokenBalance | null> },
  lastAttempt = false,
): OutcomeFacts {
  return { tokenReserve: config.source.tokens.reserve, lastAttempt, tokenBalance: () => ledger.tokenBalance() };
}
