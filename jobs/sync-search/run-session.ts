/**
 * One attempt of a run: its lock, the checkpoint it resumes, its ledger (checkpoint, counters and warnings:
 * jobs/sync-search/run-ledger.ts) and the source client it spends through. `finish` applies an outcome
 * (jobs/sync-search/run-outcome.ts): the checkpoint's fate, the run summary, the run history entry and the "run
 * finished" log line.
 */
import { CheckpointStore, DEFAULT_CHECKPOINT_TTL_MS, type RunCheckpoint } from '../../src/runs/checkpoint-store.js';
import { findFinishedRun, recordRun } from '../../src/runs/run-history.js';
import { rememberInstance } from '../../src/crm/crm-instance-store.js';
import { acquireRunLock, type RunLock } from '../../src/runs/run-lock.js';
import type { RunSummary } from '../../src/runs/run-summary.js';
import { revealSummary } from './reveal-summary.js';
import { graceSignal } from '../../src/shared/grace-signal.js';
import { isRedisOutOfMemory } from '../../src/shared/redis-connection-error.js';
import { whenRedisMemoryFrees } from '../../src/shared/redis-memory-wait.js';
import type { Logger } from '../../src/shared/logger.js';
import type { JourneyCheckpoint, SourceClient } from '../../src/source/index.js';
import type { RunRequest, SyncDeps } from './run-request.js';
import { openSource } from './open-source.js';
import type { PlanOptions, RunPlan } from './plan-run.js';
import { configCredentialHint, type AppConfig } from '../../src/config/index.js';
import { errorInfo } from './run-errors.js';
import type { RunOutcome } from './run-outcome.js';
import { RunLedger } from './run-ledger.js';
import { mirrorStep } from './mirror-step.js';
import type { CrmEnd } from './open-destination.js';
import { addWarnings } from '../../src/runs/run-warnings.js';
import { addRunMatched } from '../../src/runs/membership-store.js';
import { RunRecordIds } from '../../src/runs/run-record-ids.js';
import { addRunSuppressed } from '../../src/runs/run-suppressed.js';
import { addRunKeys, type RefreshState } from '../../src/runs/refresh-registry.js';
import { planRefresh, type RefreshPlanOptions } from './refresh-plan.js';
import { refreshStep, type KeptPartitionSource } from './refresh-step.js';
import { tileSearch } from './refresh-tiling.js';
import type { ResolvedSearch } from './resolve-search.js';

/** How long a CRM write in flight may go on after the run was stopped (shutdown forces its exit at 25 s). */
export const WRITE_GRACE_MS = 10_000;

export class RunSession {
  private plan: RunPlan | undefined;
  /**
   * Refresh mode `changed`: what this run walks of the search (jobs/sync-search/refresh-plan.ts); kept in its
   * checkpoint.
   */
  private refresh: RefreshState | undefined;
  private writes: AbortSignal | undefined;
  /** A new split in refresh mode `changed`: the registry's pieces, counted beside the walk (refresh-tiling.ts). */
  private tiling: { pieces: Promise<KeptPartitionSource[] | null>; stop: AbortController } | undefined;
  private readonly started = Date.now();
  /** The run's checkpoint, counters and warnings: what the walk commits to. */
  private readonly ledger: RunLedger;

  private constructor(
    private readonly deps: SyncDeps,
    private readonly request: RunRequest,
    private readonly log: Logger,
    private readonly lock: RunLock,
    store: CheckpointStore<JourneyCheckpoint>,
    /** The run's record ids seen (its dedup set), written with each checkpoint. */
    private readonly ids: RunRecordIds,
    /** The checkpoint this attempt resumes (same run id), or null for a new run. */
    readonly resumed: RunCheckpoint<JourneyCheckpoint> | null,
    readonly source: SourceClient,
    /** Aborts on shutdown or when the run lock is lost. */
    readonly signal: AbortSignal,
    /**
     * This run already ended in an earlier attempt (no checkpoint left, its summary in the history): nothing to walk.
     */
    readonly finishedBefore: RunSummary | null,
  ) {
    // Each committed batch's match keys join the run's matched set (the mirror step settles it once complete).
    // In refresh mode `changed` also by partition: a partition skipped later keeps the members its last walk found.
    const matched = async (keys: string[], filter: Record<string, unknown>): Promise<void> => {
      await addRunMatched(deps.redis, request.search, request.runId, keys, deps.prefix);
      if (!this.refresh) return;
      // A new split's first walk: its members are kept under the whole search (refresh-step.ts `refreshGroup`).
      const search = this.refresh.rebuilt && this.refresh.split ? this.searchFilter() : undefined;
      await addRunKeys(deps.redis, request.search, request.runId, search ?? filter, keys, deps.prefix);
    };
    this.ledger = new RunLedger({
      store,
      source,
      request,
      resumed,
      started: this.started,
      startedAt: this.startedAt,
      matched,
      suppressed: (keys) => addRunSuppressed(deps.redis, request.search, request.runId, keys, deps.prefix),
      ids,
    });
  }

  /** Takes the search's run lock (throws RunAlreadyActiveError) and loads this run's checkpoint. */
  static async open(deps: SyncDeps, search: string, request: RunRequest): Promise<RunSession> {
    const { redis, prefix, logger } = deps;
    const log = logger.child({ search, runId: request.runId });
    const ids = new RunRecordIds(redis, search, request.runId, prefix);
    const store = new CheckpointStore<JourneyCheckpoint>(redis, search, {
      prefix,
      ttlMs: deps.checkpointTtlMs ?? DEFAULT_CHECKPOINT_TTL_MS,
      along: ids,
    });
    const lock = await acquireRunLock(redis, search, request.runId, {
      prefix,
      ...(deps.lockTtlMs ? { ttlMs: deps.lockTtlMs } : {}),
    });
    const signal = AbortSignal.any([request.signal ?? new AbortController().signal, lock.lost]);
    const loadRun = () =>
      Promise.all([store.load(request.runId), findFinishedRun(redis, search, request.runId, { prefix })]).then(
        ([resumed, finished]) => ({ resumed, finished: resumed ? null : finished }),
      );
    const loaded = await (request.dryRun ? Promise.resolve({ resumed: null, finished: null }) : loadRun())
      // A run walked without a checkpoint walks from the start: ids an earlier attempt left are not its writes.
      .then(async (run) => (run.resumed ? run : ids.drop().then(() => run)))
      .catch(async (err: unknown) => {
        await lock.release().catch(() => undefined);
        throw err;
      });
    return new RunSession(
      deps,
      request,
      log,
      lock,
      store,
      ids,
      loaded.resumed,
      openSource(deps.config, redis, prefix, log),
      signal,
      loaded.finished,
    );
  }

  get logger(): Logger {
    return this.log;
  }

  /**
   * The CRM writes' signal: a write in flight when the run is stopped may finish for WRITE_GRACE_MS (its page is then
   * committed), and is cut after it, so a hung CRM call cannot hold a stopping run (docs/operations.md, Signals).
   */
  get writeSignal(): AbortSignal {
    this.writes ??= graceSignal(this.signal, WRITE_GRACE_MS);
    return this.writes;
  }

  private searchFilter(): Record<string, unknown> | undefined {
    return this.deps.config.searches.find((s) => s.name === this.request.search)?.filter as
      Record<string, unknown> | undefined;
  }

  private get dryRun(): boolean {
    return this.request.dryRun ?? false;
  }

  /**
   * The planned walk starts: the ledger (jobs/sync-search/run-ledger.ts) takes the resumed checkpoint, or a new
   * one over the plan's partitions; a streamed plan (`complete` false) adds its partitions as they are settled.
   */
  begin(plan: RunPlan, complete = true): RunLedger {
    this.plan = plan;
    this.ledger.begin(plan, complete, this.refresh);
    return this.ledger;
  }

  /**
   * The plan's options as refresh on change decides them (jobs/sync-search/refresh-plan.ts): a new run in `changed`
   * mode re-counts and chooses its partitions (`opening`: the CRM end, for its instance); a resumed one keeps its own.
   */
  async refreshPlan(resolved: ResolvedSearch, opening: Promise<CrmEnd>): Promise<RefreshPlanOptions> {
    const resumed = this.resumed ? { options: this.resumedPlan(), state: this.resumed.refresh } : null;
    const instance = async (): Promise<string> => {
      const { sink } = await opening;
      return sink.identity ? sink.identity({ signal: this.signal }) : 'default';
    };
    const planned = await planRefresh({
      deps: this.deps,
      source: this.source,
      resolved,
      instance,
      resumed,
      fullResync: this.request.fullResync ?? false,
      signal: this.signal,
    });
    this.refresh = planned.state;
    return planned.options;
  }

  /** What the plan reuses of the run being resumed: its count, its partitions and the split's pieces left. */
  private resumedPlan(): Pick<PlanOptions, 'counted' | 'partitions' | 'pending'> {
    const resumed = this.resumed;
    if (!resumed) return {};
    return {
      counted: resumed.counted,
      partitions: resumed.partitions.map((p) => ({
        filter: p.filter,
        ...(p.count === undefined ? {} : { count: p.count }),
      })),
      ...(resumed.plan && !resumed.plan.complete
        ? { pending: { pieces: resumed.plan.pending, countsLeft: resumed.plan.countsLeft } }
        : {}),
    };
  }

  /**
   * The plan is complete (its last progress said so): the summary's figures come from it. A new split in refresh
   * mode `changed` starts counting the registry's pieces now, beside the walk (the walk's split spends no more).
   */
  planned(plan: RunPlan): void {
    this.plan = plan;
    const split = this.refresh?.rebuilt ? this.refresh.split : undefined;
    const search = this.deps.config.searches.find((s) => s.name === this.request.search);
    if (!split || !search || this.dryRun || this.tiling) return;
    const stop = new AbortController();
    const pieces = tileSearch({
      source: this.source,
      entity: search.entity,
      filter: search.filter as Record<string, unknown>,
      counted: plan.counted,
      split,
      spent: plan.countRequests,
      maxJourneyRecords: this.deps.config.source.maxJourneyRecords,
      signal: AbortSignal.any([this.signal, stop.signal]),
    }).catch((err: unknown) => {
      if (!stop.signal.aborted)
        this.log.warn({ err: errorInfo(err) }, "refresh: the registry's pieces were not counted");
      return null;
    });
    this.tiling = { pieces, stop };
  }

  private get startedAt(): string {
    return this.resumed?.startedAt ?? new Date(this.started).toISOString();
  }

  /**
   * Applies `outcome`: the checkpoint's fate, the mirror step (jobs/sync-search/mirror-step.ts; `crm`: the run's CRM
   * end when open), then the summary into the run history and the log.
   */
  async finish(outcome: RunOutcome, crm?: CrmEnd): Promise<RunSummary> {
    // Redis out of memory: the checkpoint waits for memory to free (without it a resumed run walks again).
    await this.untilMemoryFrees(() =>
      this.ledger.end(outcome.checkpoint, (err: unknown) => {
        if (isRedisOutOfMemory(err)) throw err;
        this.log.warn({ err: errorInfo(err) }, 'checkpoint not saved');
      }),
    ).catch((err: unknown) => this.log.warn({ err: errorInfo(err) }, 'checkpoint not saved'));
    // The run's record ids go with its checkpoint: kept while an attempt may resume the run, else dropped.
    if (this.dryRun || !outcome.checkpoint.keep)
      await this.ids
        .drop()
        .catch((err: unknown) => this.log.warn({ err: errorInfo(err) }, 'run record ids not dropped (they expire)'));
    const counted = this.plan?.counted ?? this.resumed?.counted ?? 0;
    const search = this.deps.config.searches.find((s) => s.name === this.request.search);
    // Before the mirror: the members of partitions it skipped join the run's matched set. Without them the mirror
    // would take every member of a skipped partition for a leaver: a failed step skips the mirror too.
    let refreshed = true;
    const refresh =
      search &&
      (await refreshStep({
        deps: this.deps,
        search,
        runId: this.request.runId,
        dryRun: this.dryRun,
        outcome,
        checkpoint: this.ledger.checkpoint,
        state: this.refresh,
        counted,
        counts: () => this.ledger.counts().requests.count,
        ...(this.tiling ? { tiling: this.tiling.pieces } : {}),
      }).catch((err: unknown) => {
        this.log.warn({ err: errorInfo(err) }, 'refresh step failed');
        refreshed = this.refresh === undefined;
        return undefined;
      }));
    // Counted beside a walk that did not complete: not needed.
    this.tiling?.stop.abort();
    const counts = this.ledger.counts();
    const mirror = refreshed ? await this.mirror(outcome, crm) : undefined;
    const { warning, ...mirrored } = mirror ?? {};
    const findings = this.ledger.findings;
    const crmInstance = await this.crmInstance(crm);
    const warnings = warning ? addWarnings(findings.warnings, [warning]) : findings.warnings;
    const summary: RunSummary = {
      search: this.request.search,
      status: outcome.status,
      ...counts,
      counted,
      durationMs: Date.now() - this.started,
      runId: this.request.runId,
      startedAt: this.startedAt,
      finishedAt: new Date().toISOString(),
      dryRun: this.dryRun,
      partitions: this.plan?.partitions.length ?? 0,
      ...findings,
      ...(warnings ? { warnings } : {}),
      ...mirrored,
      ...(outcome.stopReason ? { stopReason: outcome.stopReason } : {}),
      ...(outcome.limitedBy ? { limitedBy: outcome.limitedBy } : {}),
      ...(outcome.resumeAt ? { resumeAt: outcome.resumeAt } : {}),
      ...(outcome.error ? { error: hinted(this.deps.config, outcome.error, search?.destination) } : {}),
      ...revealSummary(this.source, counts, this.plan?.quotaBy === 'sample' || outcome.limitedBy === 'sample'),
      ...(this.request.trigger ? { trigger: this.request.trigger } : {}),
      ...(this.request.fullResync ? { fullResync: true as const } : {}),
      ...(refresh ? { refresh } : {}),
      ...(crmInstance ? { crmInstance } : {}),
    };
    const unrecorded = await this.untilMemoryFrees(() =>
      recordRun(this.deps.redis, summary, { prefix: this.deps.prefix }),
    ).then(
      () => undefined,
      (err: unknown) => errorInfo(err),
    );
    // Redis gone: the summary still tells what the run did (`run` prints it, exit 4), though no history keeps it.
    if (unrecorded) {
      this.log.warn({ err: unrecorded }, 'run summary not recorded');
      summary.error ??= unrecorded;
    }
    if (summary.status === 'failed' && summary.stopReason !== 'aborted')
      this.log.error({ err: summary.error }, 'run failed');
    // Warnings make a completed run worth a look: the line is at warn, with how many and the first reasons.
    const level = summary.warnings ? 'warn' : 'info';
    this.log[level](
      {
        status: summary.status,
        stopReason: summary.stopReason,
        fetched: summary.fetched,
        created: summary.created,
        updated: summary.updated,
        warnings: summary.warnings,
      },
      'run finished',
    );
    return summary;
  }

  /**
   * The instance the run's writer asked its sink for (none asked: undefined), remembered for its destination's
   * settings: `after:` compares a followed run's instance with it (jobs/sync-search/run-order.ts).
   */
  private async crmInstance(crm: CrmEnd | undefined): Promise<string | undefined> {
    const instance = await crm?.writer.instance?.()?.catch(() => undefined);
    const search = this.deps.config.searches.find((s) => s.name === this.request.search);
    const destination = search ? this.deps.config.destinations[search.destination] : undefined;
    if (instance && destination)
      await this.untilMemoryFrees(() =>
        rememberInstance(this.deps.redis, this.deps.prefix, destination, instance),
      ).catch((err: unknown) => this.log.warn({ err: errorInfo(err) }, 'CRM instance not remembered'));
    return instance;
  }

  /** A write of the run's end, waiting while Redis is out of memory (until the run is stopped). */
  private untilMemoryFrees<T>(write: () => Promise<T>): Promise<T> {
    return whenRedisMemoryFrees(write, {
      signal: this.signal,
      onWait: () => this.log.warn('Redis is out of memory (maxmemory): the run waits for memory to free'),
    });
  }

  /** The mirror step; a failure there is logged and leaves the membership as it was (the run's outcome stands). */
  private async mirror(outcome: RunOutcome, crm: CrmEnd | undefined): ReturnType<typeof mirrorStep> {
    const search = this.deps.config.searches.find((s) => s.name === this.request.search);
    if (!search) return undefined;
    return mirrorStep({
      deps: this.deps,
      search,
      runId: this.request.runId,
      dryRun: this.dryRun,
      outcome,
      crm,
      signal: this.signal,
    }).catch((err: unknown) => {
      this.log.warn({ err: errorInfo(err) }, 'mirror step failed');
      return undefined;
    });
  }

  /** Ends the attempt: the client's run registration, its connections, the CRM sink's, the lock. */
  async close(writer?: { sink: { close(): Promise<void> } }): Promise<void> {
    this.source.endRun(this.request.runId);
    await Promise.allSettled([this.source.close(), writer?.sink.close()]);
    await this.lock.release().catch(() => undefined);
  }
}

/** A refused credential's error names the variable that holds it (never its value), whoever started the run. */
function hinted(config: AppConfig, error: { code: string; message: string }, destination: string | undefined) {
  return { ...error, message: configCredentialHint(config, error.code, error.message, destination) };
}
