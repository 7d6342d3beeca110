/**
 * The state of one attempt of a run: its lock, its checkpoint (resumed or new), its counters and warnings, and the
 * source client it spends through. `finish` applies an outcome (jobs/sync-search/run-outcome.ts): the checkpoint's
 * fate, the run summary, the run history entry and the "run finished" log line.
 */
import type { FieldMapping, WriteResult } from '../../src/crm/index.js';
import { absentPathWarnings, tallyAbsent } from '../../src/crm/absent-paths.js';
import { CheckpointStore, DEFAULT_CHECKPOINT_TTL_MS, type RunCheckpoint } from '../../src/runs/checkpoint-store.js';
import { addCounts, emptyCounts, runCounts } from '../../src/runs/run-counters.js';
import { findFinishedRun, recordRun } from '../../src/runs/run-history.js';
import { acquireRunLock, type RunLock } from '../../src/runs/run-lock.js';
import type { RunCounts, RunSummary } from '../../src/runs/run-summary.js';
import { revealSummary } from './reveal-summary.js';
import { addWarnings, type Warning } from '../../src/runs/run-warnings.js';
import { graceSignal } from '../../src/shared/grace-signal.js';
import type { Logger } from '../../src/shared/logger.js';
import type { JourneyCheckpoint, JourneyPage, PartitionProgress, SourceClient } from '../../src/source/index.js';
import type { RunRequest, SyncDeps } from './run-request.js';
import { openSource } from './open-source.js';
import type { RunPlan } from './plan-run.js';
import { errorInfo, redactText } from './run-errors.js';
import type { RunOutcome } from './run-outcome.js';

/** How long a CRM write in flight may go on after the run was stopped (shutdown forces its exit at 25 s). */
export const WRITE_GRACE_MS = 10_000;

export class RunSession {
  private plan: RunPlan | undefined;
  private cp: RunCheckpoint<JourneyCheckpoint> | undefined;
  private readonly started = Date.now();
  /** Counters of the earlier attempts, as this one found them (the checkpoint's own copy moves on). */
  private readonly earlier: RunCounts | undefined;

  private constructor(
    private readonly deps: SyncDeps,
    private readonly request: RunRequest,
    private readonly log: Logger,
    private readonly lock: RunLock,
    private readonly store: CheckpointStore<JourneyCheckpoint>,
    /** The checkpoint this attempt resumes (same run id), or null for a new run. */
    readonly resumed: RunCheckpoint<JourneyCheckpoint> | null,
    readonly source: SourceClient,
    /** Aborts on shutdown or when the run lock is lost. */
    readonly signal: AbortSignal,
    /** This run already ended in an earlier attempt (no checkpoint left, its summary in the history): nothing to walk. */
    readonly finishedBefore: RunSummary | null,
  ) {
    this.earlier = resumed ? structuredClone(resumed.counts) : undefined;
  }

  private writes: AbortSignal | undefined;

  /** Takes the search's run lock (throws RunAlreadyActiveError) and loads this run's checkpoint. */
  static async open(deps: SyncDeps, search: string, request: RunRequest): Promise<RunSession> {
    const { redis, prefix, logger } = deps;
    const log = logger.child({ search, runId: request.runId });
    const store = new CheckpointStore<JourneyCheckpoint>(redis, search, { prefix, ttlMs: deps.checkpointTtlMs ?? DEFAULT_CHECKPOINT_TTL_MS });
    const lock = await acquireRunLock(redis, search, request.runId, { prefix, ...(deps.lockTtlMs ? { ttlMs: deps.lockTtlMs } : {}) });
    const signal = AbortSignal.any([request.signal ?? new AbortController().signal, lock.lost]);
    const loaded = request.dryRun ? { resumed: null, finished: null } : await Promise.all([
      store.load(request.runId),
      findFinishedRun(redis, search, request.runId, { prefix }),
    ]).then(([resumed, finished]) => ({ resumed, finished: resumed ? null : finished })).catch(async (err: unknown) => {
      await lock.release().catch(() => undefined);
      throw err;
    });
    return new RunSession(deps, request, log, lock, store, loaded.resumed, openSource(deps.config, redis, prefix, log), signal, loaded.finished);
  }

  /**
   * The CRM writes' signal: a write in flight when the run is stopped may finish for WRITE_GRACE_MS (its page is then
   * checkpointed), and is cut after it, so a hung CRM call cannot hold a stopping run (docs/operations.md, Signals).
   */
  get writeSignal(): AbortSignal {
    this.writes ??= graceSignal(this.signal, WRITE_GRACE_MS);
    return this.writes;
  }

  get logger(): Logger {
    return this.log;
  }

  private get dryRun(): boolean {
    return this.request.dryRun ?? false;
  }

  /**
   * The planned walk starts: the resumed checkpoint as it is, or a new one over the plan's partitions. A streamed
   * plan (`complete` false) adds its partitions as they settle (`planProgress`).
   */
  begin(plan: RunPlan, complete = true): RunCheckpoint<JourneyCheckpoint> {
    this.plan = plan;
    this.cp = this.resumed ?? {
      runId: this.request.runId, startedAt: this.startedAt, counted: plan.counted, counts: emptyCounts(),
      partitions: plan.partitions.map((p) => ({ filter: p.filter, state: null, done: false, count: p.count })),
      plan: { complete, pending: [], countsLeft: 0 },
    };
    return this.cp;
  }

  /**
   * The split settled partitions (walked from now on) and has these pieces left: both in the checkpoint at once,
   * before this returns (the save follows in the promise).
   */
  planProgress(progress: PartitionProgress): Promise<void> {
    const cp = this.cp;
    if (!cp) return Promise.resolve();
    for (const p of progress.settled) cp.partitions.push({ filter: p.filter, state: null, done: false, count: p.count });
    cp.plan = { complete: progress.pending.length === 0, pending: progress.pending, countsLeft: progress.countsLeft };
    return this.saveCheckpoint();
  }

  /** The plan is complete (its last progress said so): the summary's figures come from it. */
  planned(plan: RunPlan): void {
    this.plan = plan;
  }

  private get startedAt(): string {
    return this.resumed?.startedAt ?? new Date(this.started).toISOString();
  }

  /**
   * Books one accepted write: counters, link errors and warnings (redacted reasons), the mapped paths its records
   * lacked (with the mapping), progress.
   */
  async recordWrite(page: JourneyPage, result: WriteResult, mapping?: FieldMapping): Promise<void> {
    const cp = this.cp;
    if (!cp) return;
    if (mapping) cp.absentPaths = tallyAbsent(cp.absentPaths, mapping, page.records, page.revealSkipped !== undefined);
    // The CRM holds these persons' contacts now: later runs pass them by without paying again.
    if (!this.dryRun && page.revealed) await this.source.markRevealed(page.revealed);
    addCounts(cp.counts, {
      fetched: page.returned, unique: page.records.length, created: result.created, updated: result.updated,
      unchanged: result.unchanged, rejected: result.rejected, tokensSpent: page.tokensCharged, creditsSpent: page.creditsCharged,
    });
    if (result.linkErrors > 0) cp.linkErrors = (cp.linkErrors ?? 0) + result.linkErrors;
    const warnings = addWarnings(cp.warnings, warningReasons(result));
    if (warnings) cp.warnings = warnings;
    this.request.onProgress?.({
      fetched: cp.counts.fetched, target: this.plan?.target ?? 0, tokensSpent: cp.counts.tokensSpent,
      creditsSpent: cp.counts.creditsSpent, elapsedMs: Date.now() - this.started,
    });
  }

  /** The run's counters now, earlier attempts included. */
  counts(): RunCounts {
    return runCounts(this.cp?.counts ?? this.earlier ?? emptyCounts(), this.earlier, this.source.stats());
  }

  /** Saves the checkpoint (after every accepted write; never in a dry run). */
  async saveCheckpoint(ttlMs?: number): Promise<void> {
    const cp = this.cp;
    if (!cp || this.dryRun) return;
    const { requests, throttled } = this.counts();
    cp.counts = { ...cp.counts, requests, throttled };
    await this.store.save(cp, ttlMs);
  }

  /** Applies `outcome`: the checkpoint's fate, then the summary into the run history and the log. */
  async finish(outcome: RunOutcome): Promise<RunSummary> {
    if (this.cp && !this.dryRun) {
      // Unanswered pages the client booked at their worst case count too, in the summary and a resumed attempt.
      this.cp.counts = this.counts();
      if (!outcome.checkpoint.keep) await this.store.clear(this.request.runId);
      // A checkpoint that cannot be saved costs tokens on resume (journeys restart), not the outcome.
      else await this.saveCheckpoint(outcome.checkpoint.ttlMs).catch((err: unknown) => this.log.warn({ err: errorInfo(err) }, 'checkpoint not saved'));
    }
    const cp = this.cp;
    // Paths absent in (nearly) every record: said once, at the end (not kept in the checkpoint's warnings).
    const warnings = addWarnings(cp?.warnings, absentPathWarnings(cp?.absentPaths).map((text) => ({ code: 'absent_path', reason: redactText(text), line: redactText(text) })));
    const summary: RunSummary = {
      search: this.request.search,
      status: outcome.status, ...this.counts(), counted: this.plan?.counted ?? this.resumed?.counted ?? 0,
      durationMs: Date.now() - this.started, runId: this.request.runId, startedAt: this.startedAt, finishedAt: new Date().toISOString(),
      dryRun: this.dryRun, partitions: cp?.partitions.length ?? this.plan?.partitions.length ?? 0,
      ...(cp?.linkErrors ? { linkErrors: cp.linkErrors } : {}), ...(warnings ? { warnings } : {}),
      ...(outcome.stopReason ? { stopReason: outcome.stopReason } : {}), ...(outcome.limitedBy ? { limitedBy: outcome.limitedBy } : {}), ...(outcome.resumeAt ? { resumeAt: outcome.resumeAt } : {}),
      ...(outcome.error ? { error: outcome.error } : {}), ...revealSummary(this.source, this.counts()),
    };
    await recordRun(this.deps.redis, summary, { prefix: this.deps.prefix });
    if (summary.status === 'failed' && summary.stopReason !== 'aborted') this.log.error({ err: summary.error }, 'run failed');
    // Warnings make a completed run worth a look: the line is at warn, with how many and the first reasons.
    const level = summary.warnings ? 'warn' : 'info';
    this.log[level]({ status: summary.status, stopReason: summary.stopReason, fetched: summary.fetched, created: summary.created, updated: summary.updated, warnings: summary.warnings }, 'run finished');
    return summary;
  }

  /** Ends the attempt: the client's dedup set, its connections, the CRM sink's, the lock. */
  async close(writer?: { sink: { close(): Promise<void> } }): Promise<void> {
    this.source.endRun(this.request.runId);
    await Promise.allSettled([this.source.close(), writer?.sink.close()]);
    await this.lock.release().catch(() => undefined);
  }
}

/** One warning per rejected record and failed link, redacted (no keys: a match key may be an email). */
function warningReasons(result: WriteResult): Warning[] {
  const warnings: Warning[] = [];
  for (const o of result.outcomes) {
    if (o.status === 'rejected') {
      const reason = redactText(o.reason);
      warnings.push({ code: o.code, ...(o.field === undefined ? {} : { field: o.field }), reason, line: redactText(`rejected (${o.code}): ${o.reason}`) });
    } else if ((o.status === 'created' || o.status === 'updated') && o.linkError !== undefined) {
      const reason = redactText(o.linkError);
      warnings.push({ code: 'link_failed', reason, line: `link failed: ${reason}` });
    }
  }
  return warnings;
}
