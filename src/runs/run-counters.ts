/**
 * The counters of one run and their arithmetic across attempts. A run that was delayed or crashed and resumed keeps
 * its counters in its checkpoint, so every figure of its summary is cumulative over all its attempts.
 */
/** A run's counters (the summary's first block of figures, docs/contract.md). */
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

export function emptyCounts(): RunCounts {
  return {
    counted: 0,
    fetched: 0,
    unique: 0,
    created: 0,
    updated: 0,
    unchanged: 0,
    rejected: 0,
    tokensSpent: 0,
    creditsSpent: 0,
    requests: { search: 0, count: 0 },
    throttled: 0,
  };
}

/** Adds `b` into `a` (counters only; `counted` is a plan figure, not a sum). */
export function addCounts(
  a: RunCounts,
  b: Partial<Omit<RunCounts, 'requests'>> & { requests?: Partial<RunCounts['requests']> },
): void {
  for (const k of [
    'fetched',
    'unique',
    'created',
    'updated',
    'unchanged',
    'rejected',
    'tokensSpent',
    'creditsSpent',
    'throttled',
  ] as const) {
    a[k] += b[k] ?? 0;
  }
  a.requests.search += b.requests?.search ?? 0;
  a.requests.count += b.requests?.count ?? 0;
}

/** What the source client counted during this attempt (its `stats()`). */
export interface AttemptSpend {
  tokensSpent: number;
  creditsSpent: number;
  requests: { search: number; count: number };
  throttled: number;
}

/**
 * The run's counters now: what accepted writes accumulated (`accumulated`, earlier attempts included) plus this
 * attempt's requests and 429s, which only the source client knows (`earlier` = the counters this attempt resumed
 * from). Tokens and credits take the client's figure when it is higher: a page sent but never answered (abort,
 * timeout) yields no page to add up, yet may have been charged, and the client books it at its worst case.
 */
export function runCounts(accumulated: RunCounts, earlier: RunCounts | undefined, attempt: AttemptSpend): RunCounts {
  const atLeast = (total: number, before: number, thisAttempt: number): number =>
    before + Math.max(total - before, thisAttempt);
  return {
    ...accumulated,
    tokensSpent: atLeast(accumulated.tokensSpent, earlier?.tokensSpent ?? 0, attempt.tokensSpent),
    creditsSpent: atLeast(accumulated.creditsSpent, earlier?.creditsSpent ?? 0, attempt.creditsSpent),
    requests: {
      search: (earlier?.requests.search ?? 0) + attempt.requests.search,
      count: (earlier?.requests.count ?? 0) + attempt.requests.count,
    },
    throttled: (earlier?.throttled ?? 0) + attempt.throttled,
  };
}
