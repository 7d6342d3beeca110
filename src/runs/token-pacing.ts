/**
 * Pacing (`source.tokens.pace: true`): whether a queued run may spend its tokens now, or would leave less than the
 * searches of higher `priority` need until the token reset at their pace (src/runs/allotment-forecast.ts). A paced
 * run is delayed, never failed. Pure: the queue's gate (jobs/sync-search/token-pace-gate.ts) supplies the figures.
 */
import type { SearchPaceInput } from './allotment-forecast.js';
import { scheduleTicks } from './schedule-ticks.js';

export interface PacedSearch extends SearchPaceInput {
  priority: number;
}

export interface PaceDecision {
  delay: boolean;
  /** Tokens the searches of higher priority need until the reset. */
  needed: number;
  /** Tokens this run is expected to spend (its pace; 0 for a search never run: it is not paced). */
  run: number;
  /** The balance less the reserve. */
  spendable: number;
  /** With `delay`: when to look again (epoch ms): this search's next scheduled run, at the latest the reset. */
  retryAt: number | null;
}

export interface PaceInput {
  search: string;
  priority: number;
  schedule: SearchPaceInput['schedule'];
  /** Paces of every search with history (this one included when it has run). */
  searches: readonly PacedSearch[];
  balance: { remaining: number; resetAt: number };
  reserve: number;
  now: Date;
}

export function paceRun(input: PaceInput): PaceDecision {
  const now = input.now.getTime();
  const { resetAt, remaining } = input.balance;
  const spendable = remaining - input.reserve;
  const run = input.searches.find((s) => s.search === input.search)?.pace.tokens ?? 0;
  if (resetAt <= now) return { delay: false, needed: 0, run, spendable, retryAt: null };
  const needed = input.searches
    .filter((s) => s.search !== input.search && s.priority > input.priority)
    .reduce((n, s) => n + scheduleTicks(s.schedule, now, resetAt).total * s.pace.tokens, 0);
  // Nothing of higher priority to protect: the run goes (its budget stops it as without pacing).
  const delay = run > 0 && needed > 0 && spendable - run < needed;
  const next = scheduleTicks(input.schedule, now, resetAt).at(0);
  return { delay, needed, run, spendable, retryAt: delay ? (next ?? resetAt) : null };
}
