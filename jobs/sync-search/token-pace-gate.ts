/**
 * The queue's pacing gate (`source.tokens.pace: true`): before a queued run starts, whether it would leave less of
 * the token allotment than the searches of higher `priority` need until the reset (src/runs/token-pacing.ts). The
 * figures: the balance the API last reported (the budget ledger), each scheduled search's pace from its run history.
 * `trigger --force` (job data `force`) and `prospect-sync run` are not paced.
 */
import { RedisBudgetLedger } from '../../src/source/budget-ledger.js';
import { defaultAccountKey } from '../../src/source/index.js';
import { paceFromHistory } from '../../src/runs/allotment-forecast.js';
import { listRuns } from '../../src/runs/run-history.js';
import { paceRun, type PaceDecision, type PacedSearch } from '../../src/runs/token-pacing.js';
import type { SyncDeps } from './run-request.js';

/** Runs of each search's history read for its pace (the pace averages the last few that walked among them). */
const HISTORY_DEPTH = 20;

/** The decision for a run of `search` now; null when pacing is off, the search unknown or the balance not known yet. */
export async function tokenPaceDecision(
  deps: Pick<SyncDeps, 'config' | 'redis' | 'prefix'>,
  search: string,
  now = new Date(),
): Promise<PaceDecision | null> {
  const { config, redis, prefix } = deps;
  const own = config.searches.find((s) => s.name === search);
  if (!config.source.tokens.pace || !own) return null;
  const account = defaultAccountKey(config.source.baseUrl, config.source.auth.clientId);
  const balance = await new RedisBudgetLedger(redis, `${prefix}:source:${account}`, 0, {}).tokenBalance();
  if (!balance) return null;
  const searches: PacedSearch[] = [];
  for (const s of config.searches) {
    if (!s.schedule && s.name !== search) continue;
    const pace = paceFromHistory(await listRuns(redis, s.name, { prefix, limit: HISTORY_DEPTH }));
    if (pace) searches.push({ search: s.name, schedule: s.schedule, pace, priority: s.priority });
  }
  return paceRun({
    search,
    priority: own.priority,
    schedule: own.schedule,
    searches,
    balance,
    reserve: config.source.tokens.reserve,
    now,
  });
}
