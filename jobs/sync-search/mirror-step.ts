/**
 * The mirror step, once after a run's outcome (docs/runs.md, Mirror): a complete run (completed, not at
 * `maxRecords`) settles its matched set against the search's membership (who entered, who left) and acts on the
 * confirmed leavers unless the leave guard holds them back (`leave_guard`); a complete dry run only forecasts that.
 * Any other ending changes no membership; its matched set is dropped once nothing will resume the run.
 */
import type { SavedSearch } from '../../src/config/index.js';
import { dropRunMatched, type Forecast, type LeaveRules, type Settled } from '../../src/runs/membership-store.js';
import type { Warning } from '../../src/runs/run-warnings.js';
import { dropRunSuppressed } from '../../src/runs/run-suppressed.js';
import { actOnLeavers, leaveRules, membershipOf } from './leavers.js';
import { addMembersToList } from './list-members.js';
import { leaveSuppressed } from './suppressed-leavers.js';
import { errorInfo } from './run-errors.js';
import type { CrmEnd } from './open-destination.js';
import type { RunOutcome } from './run-outcome.js';
import type { SyncDeps } from './run-request.js';

/** The summary's mirror fields, and the warning of a guarded run. */
export interface MirrorReport {
  entered: number;
  left: number;
  leaveActions: number;
  leaversPending: number;
  /** With `list:`: members the CRM added to the search's list, and leavers removed from it (`removeFromList`). */
  listAdded?: number;
  listRemoved?: number;
  warning?: Warning;
}

export interface MirrorInput {
  deps: SyncDeps;
  search: SavedSearch;
  runId: string;
  dryRun: boolean;
  outcome: RunOutcome;
  crm: CrmEnd | undefined;
  signal?: AbortSignal;
}

export async function mirrorStep(input: MirrorInput): Promise<MirrorReport | undefined> {
  const { deps, search, runId, outcome, crm } = input;
  const complete = outcome.status === 'completed' && outcome.limitedBy === undefined;
  if (!complete || !crm) {
    if (!outcome.checkpoint.keep || input.dryRun) {
      await dropRunMatched(deps.redis, search.name, runId, deps.prefix);
      await dropRunSuppressed(deps.redis, search.name, runId, deps.prefix);
    }
    return undefined;
  }
  const io = { redis: deps.redis, prefix: deps.prefix, search, crm, ...(input.signal ? { signal: input.signal } : {}) };
  const { store, instance } = await membershipOf(io);
  const rules = leaveRules(deps.config, search);
  if (input.dryRun) {
    const list = search.list === undefined ? 'none' : search.onLeave === 'removeFromList' ? 'removeFromList' : 'list';
    return forecast(await store.forecast(runId, rules, list), search, rules);
  }
  // Members found suppressed leave first (no onLeave; archived with `suppressed: archive`).
  const gone = await leaveSuppressed({ ...io, store, instance, runId });
  const settled = await store.settle(runId, rules);
  // A list the CRM refuses does not undo the settle: the members not added are tried again after the next complete run.
  const listed =
    search.list === undefined
      ? undefined
      : await addMembersToList({ ...io, store }).catch((err: unknown) => listWarning(errorInfo(err).message));
  const report = {
    entered: settled.entered,
    left: settled.left + gone.left,
    leaveActions: gone.archived,
    leaversPending: settled.pending,
    ...(listed === undefined ? {} : { listAdded: typeof listed === 'number' ? listed : 0, listRemoved: 0 }),
  };
  if (typeof listed === 'object') return { ...report, warning: listed };
  if (gone.reason !== undefined) return { ...report, warning: suppressedWarning(gone.reason) };
  if (settled.guarded) return { ...report, warning: guardWarning(settled, search, rules) };
  if (settled.pending === 0) return report;
  // The CRM may refuse leavers' fields (say a setFields field it lacks), record by record or the whole write: those
  // leavers stay pending (the next complete run tries again), and the run says why.
  const acted = await actOnLeavers(io).catch((err: unknown) => ({
    acted: 0,
    pending: settled.pending,
    reason: errorInfo(err).message,
  }));
  const done = {
    ...report,
    leaveActions: gone.archived + acted.acted,
    leaversPending: acted.pending,
    ...('listRemoved' in acted && acted.listRemoved !== undefined ? { listRemoved: acted.listRemoved } : {}),
  };
  if (acted.reason === undefined) return done;
  const reason = `onLeave refused for ${acted.pending} leavers (they stay pending): ${acted.reason}`;
  return { ...done, warning: { code: 'leave_refused', reason, line: reason } };
}

/**
 * A dry run: what the run would report (leavers it would act on, or hold back; with `list:` the keys it would add
 * to the list and remove from it), the membership and the CRM unchanged.
 */
function forecast(f: Forecast, search: SavedSearch, rules: LeaveRules): MirrorReport {
  const leavers = f.pending + f.left;
  const list = search.list === undefined ? {} : { listAdded: f.listAdds, listRemoved: f.listRemoves };
  const report = {
    entered: f.entered,
    left: f.left,
    leaveActions: f.guarded || search.onLeave === 'nothing' ? 0 : leavers,
    leaversPending: f.guarded ? leavers : 0,
    ...list,
  };
  return f.guarded ? { ...report, warning: guardWarning({ ...f, pending: leavers }, search, rules) } : report;
}

function suppressedWarning(message: string): Warning {
  const reason = `the CRM refused to archive suppressed members (they left the mirror all the same): ${message}`;
  return { code: 'leave_refused', reason, line: reason };
}

function listWarning(message: string): Warning {
  const reason = `the search's list refused the members it lacks (tried again after the next complete run): ${message}`;
  return { code: 'list_refused', reason, line: reason };
}

function guardWarning(settled: Settled, search: SavedSearch, rules: LeaveRules): Warning {
  const reason =
    `the matches fell by more than ${Math.round(rules.maxShare * 100)}% since the last complete run the guard let ` +
    `through, or to 0 (${settled.matched} now): ${settled.pending} leavers pending; \`prospect-sync ` +
    `leavers ${search.name} --apply\` acts on them`;
  return { code: 'leave_guard', reason, line: `leave guard: ${reason}` };
}
