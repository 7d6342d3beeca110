/**
 * The summary of one run: the job's return value, one entry of the run history and the last line of
 * `run --json`. The contract (shared/CONTRACT.md) fixes the first block of fields; the rest are additions.
 */
export type RunStatus = 'completed' | 'partial' | 'failed' | 'delayed';

/** Why a run stopped before walking every matching record. */
export type StopReason =
  | 'max_records'
  | 'credit_cap_run'
  | 'credit_cap_day'
  | 'token_reserve'
  | 'tokens_exhausted'
  | 'aborted';

export interface RunCounts {
  counted: number;
  fetched: number;
  unique: number;
  created: number;
  updated: number;
  unchanged: number;
  rejected: number;
  tokensSpent: number;
  creditsSpent: number;
  requests: { search: number; count: number };
  throttled: number;
}

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
  /** When a delayed run resumes (ISO time): the budget's reset. */
  resumeAt?: string;
  /** Persons whose company link failed although the record itself landed. */
  linkErrors?: number;
  error?: { code: string; message: string };
  /** Contacts searches: persons whose contacts this run paid for (one credit each). */
  personsRevealed?: number;
  /** Contacts searches: persons passed by without a reveal (revealed before and still fresh; no credit). */
  revealSkipped?: number;
  /** Search tokens spent per record landed in the CRM (created + updated + unchanged). */
  tokensSpentPerRecord?: number;
  /** The API refused a re-sent cursor: some journey revealed whole pages (paying for persons revealed before). */
  revealFallback?: boolean;
}

export function emptyCounts(): RunCounts {
  return {
    counted: 0, fetched: 0, unique: 0, created: 0, updated: 0, unchanged: 0, rejected: 0,
    tokensSpent: 0, creditsSpent: 0, requests: { search: 0, count: 0 }, throttled: 0,
  };
}

/** Adds `b` into `a` (counters only; `counted` is a plan figure, not a sum). */
export function addCounts(a: RunCounts, b: Partial<Omit<RunCounts, 'requests'>> & { requests?: Partial<RunCounts['requests']> }): void {
  for (const k of ['fetched', 'unique', 'created', 'updated', 'unchanged', 'rejected', 'tokensSpent', 'creditsSpent', 'throttled'] as const) {
    a[k] += b[k] ?? 0;
  }
  a.requests.search += b.requests?.search ?? 0;
  a.requests.count += b.requests?.count ?? 0;
}

/** Exit code of `run` for a summary, as the contract promises: 0 completed, 1 failed, 3 partial/delayed. */
export function exitCodeOf(summary: Pick<RunSummary, 'status'>): 0 | 1 | 3 {
  switch (summary.status) {
    case 'completed': return 0;
    case 'failed': return 1;
    case 'partial':
    case 'delayed': return 3;
  }
}

/** The summary of a run that could not start (another run active, search refused at run time). */
export function notStartedSummary(search: string, runId: string, dryRun: boolean, error: { code: string; message: string }): RunSummary {
  const now = new Date().toISOString();
  return { search, status: 'failed', ...emptyCounts(), durationMs: 0, runId, startedAt: now, finishedAt: now, dryRun, partitions: 0, error };
}
