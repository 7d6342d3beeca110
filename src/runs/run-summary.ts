/**
 * The summary of one run: the job's return value, one entry of the run history and the last line of
 * `run --json`. The contract (docs/contract.md) fixes the first block of fields; the rest are additions.
 */
import { emptyCounts, type RunCounts } from './run-counters.js';
import type { RunWarnings } from './run-warnings.js';

export type RunStatus = 'completed' | 'partial' | 'failed' | 'delayed';

/** Why a run stopped before walking every matching record. */
export type StopReason =
  | 'max_records'
  | 'credit_cap_run'
  | 'credit_cap_day'
  | 'token_reserve'
  | 'tokens_exhausted'
  | 'aborted'
  /**
   * Delayed before it started: it would leave less than the searches of higher priority need
   * (src/runs/token-pacing.ts).
   */
  | 'paced';

export interface RunSummary extends RunCounts {
  search: string;
  status: RunStatus;
  durationMs: number;
  runId: string;
  startedAt: string;
  finishedAt: string;
  dryRun: boolean;
  partitions: number;
  stopReason?: StopReason;
  /**
   * A completed run that ended at the user's limit: `maxRecords` distinct records (the first N of the walk's order),
   * or a dry run's `--sample` N (`sample`).
   */
  limitedBy?: 'max_records' | 'sample';
  /** When a delayed run resumes (ISO time): the budget's reset. */
  resumeAt?: string;
  /** Persons whose company link failed although the record itself landed. */
  linkErrors?: number;
  /** Links made and failed per association (`associate.company`); absent when the run linked nothing. */
  links?: { company: { linked: number; linkFailed: number } };
  /** Rejected records and failed links (count and first redacted reasons); absent when there were none. */
  warnings?: RunWarnings;
  error?: { code: string; message: string };
  /** Contacts searches: persons whose contacts this run paid for (one credit each). */
  personsRevealed?: number;
  /** Persons dropped as suppressed (`suppress:`): neither written nor, when known before, revealed. */
  suppressed?: number;
  /** Contacts searches: persons passed by without a reveal (revealed before and still fresh; no credit). */
  revealSkipped?: number;
  /**
   * Dry runs of a contacts search (they ask for no contacts, no credit): what a real run would reveal of the persons
   * walked, decided from the reveal store as a real run decides. `from: 'sample'`: of a `--sample` only.
   */
  revealForecast?: { credits: number; revealSkipped: number; from: 'reveal-store' | 'sample' };
  /** Search tokens spent per record landed in the CRM (created + updated + unchanged). */
  tokensSpentPerRecord?: number;
  /**
   * What started it: `schedule`, `manual` (dashboard, `trigger`) or `cli` (`prospect-sync run`); absent: older runs.
   */
  trigger?: 'schedule' | 'manual' | 'cli';
  /** The run sent every record even when unchanged (`--full-resync`, the dashboard's "Full resync"). */
  fullResync?: true;
  /** The API refused a re-sent cursor: some journey revealed whole pages (paying for persons revealed before). */
  revealFallback?: boolean;
  /** Complete runs (docs/runs.md, Mirror): records matched now and not in the search's membership before. */
  entered?: number;
  /**
   * Complete runs: members confirmed as leavers by this run (absent from `leave.confirmRuns` consecutive complete
   * runs).
   */
  left?: number;
  /** Complete runs: leavers the search's `onLeave` acted on in this run. */
  leaveActions?: number;
  /** Complete runs: confirmed leavers not acted on (held back by the leave guard, or refused by the CRM). */
  leaversPending?: number;
  /** Complete runs of a search with `list:`: members the CRM added to its list in this run. */
  listAdded?: number;
  /** Complete runs of a search with `list:`: leavers removed from its list (`onLeave: removeFromList`). */
  listRemoved?: number;
  /**
   * The CRM instance the run wrote to, as its sink reported it (`hubspot:<portalId>`, `salesforce:<orgId>`): `after:`
   * counts a complete run only for that instance. Absent: the run never asked (it failed before) or an older run.
   */
  crmInstance?: string;
  /** Runs in refresh mode `changed` (docs/runs.md, Refresh on change): what the run walked of the search and why. */
  refresh?: RefreshSummary;
}

/** The summary's `refresh` block. */
export interface RefreshSummary {
  mode: 'changed';
  /** Partitions of the last complete walk the run found (0 without a registry). */
  kept: number;
  /** Partitions walked: their count changed, new (a new split: every partition), the stalest share. */
  walked: { changed: number; new: number; stale: number };
  /** Kept partitions not walked: their records keep their last state (no token). */
  skipped: number;
  /** Count requests the run made (the search's count, the re-counts, a new split's). */
  counts: number;
  /**
   * Complete runs: members gone from a walked partition and found in no walked one, still counted as members (they
   * may have moved into a skipped partition) until every partition was walked after they went; absent: none.
   */
  held?: number;
  /** Tokens a full walk would have needed: the search's count. */
  fullTokens: number;
  /**
   * Why every partition was walked: `first` (no registry), `search_changed`, `untiled` (the counts did not add up to
   * the search's), `too_many` (more partitions than a re-count within `maxCounts` allows), `full_resync` (the run sends
   * every record).
   */
  rebuilt?: 'first' | 'search_changed' | 'untiled' | 'too_many' | 'full_resync';
}

// The counters and their arithmetic live in run-counters.ts; re-exported here for existing callers.
export { addCounts, emptyCounts, type RunCounts } from './run-counters.js';

/** Exit code of `run` for a summary, as the contract promises: 0 completed, 1 failed, 3 partial/delayed. */
export function exitCodeOf(summary: Pick<RunSummary, 'status'>): 0 | 1 | 3 {
  switch (summary.status) {
    case 'completed':
      return 0;
    case 'failed':
      return 1;
    case 'partial':
    case 'delayed':
      return 3;
  }
}

/** The summary of a queued run pacing delayed before it started: nothing fetched; it looks again at `resumeAt`. */
export function pacedSummary(search: string, runId: string, resumeAt: Date): RunSummary {
  const now = new Date().toISOString();
  return {
    search,
    status: 'delayed',
    ...emptyCounts(),
    durationMs: 0,
    runId,
    startedAt: now,
    finishedAt: now,
    dryRun: false,
    partitions: 0,
    stopReason: 'paced',
    resumeAt: resumeAt.toISOString(),
  };
}

/** The summary of a run that could not start (another run active, search refused at run time). */
export function notStartedSummary(
  search: string,
  runId: string,
  dryRun: boolean,
  error: { code: string; message: string },
): RunSummary {
  const now = new Date().toISOString();
  return {
    search,
    status: 'failed',
    ...emptyCounts(),
    durationMs: 0,
    runId,
    startedAt: now,
    finishedAt: now,
    dryRun,
    partitions: 0,
    error,
  };
}
