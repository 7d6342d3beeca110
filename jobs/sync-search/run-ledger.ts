/**
 * The one owner of a run's state: its checkpoint (partitions, where each journey stands, how far the split got),
 * its counters, warnings and reveals. Every change goes through a method here, and is saved from here, so a
 * resumed attempt finds exactly what the CRM accepted. Nothing else edits the checkpoint.
 */
import {
  landedAny,
  summarize,
  type AnsweredOutcomes,
  type FieldMapping,
  type WriteOutcome,
  type WriteResult,
} from '../../src/crm/index.js';
import { absentPathWarnings, tallyAbsent } from '../../src/crm/absent-paths.js';
import type { CheckpointStore, PartitionCheckpoint, RunCheckpoint } from '../../src/runs/checkpoint-store.js';
import type { RefreshState } from '../../src/runs/refresh-registry.js';
import type { RunRecordIds } from '../../src/runs/run-record-ids.js';
import type { RunSummary } from '../../src/runs/run-summary.js';
import type { RunProgress } from '../../src/runs/progress-bar.js';
import { addCounts, emptyCounts, runCounts, type RunCounts } from '../../src/runs/run-counters.js';
import { addWarnings, type RunWarnings, type Warning } from '../../src/runs/run-warnings.js';
import type {
  Filter,
  JourneyCheckpoint,
  JourneyPage,
  PartitionProgress,
  SourceClient,
} from '../../src/source/index.js';
import type { RunPlan } from './plan-run.js';
import { redactText } from './run-errors.js';
import type { CheckpointFate } from './run-outcome.js';
import { RefusalGuard } from './refusal-guard.js';
import { batchCounts, warningReasons } from './batch-figures.js';

export type WalkPartition = Readonly<PartitionCheckpoint<JourneyCheckpoint>>;

export interface LedgerDeps {
  store: CheckpointStore<JourneyCheckpoint>;
  source: SourceClient;
  /** The run's id, whether it writes nothing (then nothing is saved) and who hears its progress. */
  request: { runId: string; dryRun?: boolean; onProgress?: (progress: RunProgress) => void };
  /** The checkpoint this attempt resumes, or null for a new run. */
  resumed: RunCheckpoint<JourneyCheckpoint> | null;
  /** When this attempt started (ms since the epoch), and the run's start (ISO; an earlier attempt's when resumed). */
  started: number;
  startedAt: string;
  /** Adds a committed batch's match keys, found in partition `filter`, to the run's matched set (the mirror input). */
  matched?: (keys: string[], filter: Record<string, unknown>) => Promise<void>;
  /** Adds a committed batch's match keys of suppressed records to the run's suppressed set (never in a dry run). */
  suppressed?: (keys: string[]) => Promise<void>;
  /** The run's dedup set (Redis): a batch's ids are saved with the checkpoint moving past it (a dry run: at once). */
  ids?: RunRecordIds;
}

export class RunLedger {
  private cp: RunCheckpoint<JourneyCheckpoint> | undefined;
  /** Counters of the earlier attempts, as this one found them (the checkpoint's own copy moves on). */
  private readonly earlier: RunCounts | undefined;
  private target = 0;
  /** The mapping the run writes through: each committed batch's records are checked for the paths it maps. */
  private mapping: FieldMapping | undefined;
  /** Stops the run when its first writes are all refused for one reason (jobs/sync-search/refusal-guard.ts). */
  private readonly refusals = new RefusalGuard();
  /** Batches the CRM took that the run could not commit: in this attempt's figures, never in its checkpoint. */
  private readonly unrecorded = emptyCounts();

  constructor(private readonly deps: LedgerDeps) {
    this.earlier = deps.resumed ? structuredClone(deps.resumed.counts) : undefined;
  }

  private get dryRun(): boolean {
    return this.deps.request.dryRun ?? false;
  }

  /**
   * The planned walk starts: the resumed checkpoint as it is, or a new one over the plan's partitions. A streamed
   * plan (`complete` false) adds its partitions as they are settled (`addPlanned`).
   */
  begin(plan: RunPlan, complete: boolean, refresh?: RefreshState): void {
    this.target = plan.target;
    this.cp = this.deps.resumed ?? {
      runId: this.deps.request.runId,
      startedAt: this.deps.startedAt,
      counted: plan.counted,
      counts: emptyCounts(),
      partitions: plan.partitions.map((p) => ({ filter: p.filter, state: null, done: false, count: p.count })),
      plan: { complete, pending: [], countsLeft: 0 },
      ...(refresh ? { refresh } : {}),
    };
  }

  /** The CRM end is open: from now on each committed batch tallies the mapped paths its records lack. */
  writesThrough(mapping: FieldMapping): void {
    this.mapping = mapping;
  }

  /** The checkpoint as it stands (read only: how the walk ended, the summary); undefined before `begin`. */
  get checkpoint(): Readonly<RunCheckpoint<JourneyCheckpoint>> | undefined {
    return this.cp;
  }

  /** Distinct records kept so far, earlier attempts included: what `maxRecords` counts. */
  get kept(): number {
    return this.cp?.counts.unique ?? 0;
  }

  /** The run's record ids seen, asked by each page of its journeys; undefined: the source client's own. */
  get dedup(): RunRecordIds | undefined {
    return this.deps.ids;
  }

  /** Records per CRM write now: smaller until the run's first writes show the CRM takes its records. */
  writeBatch(normal: number): number {
    return this.refusals.writeBatch(normal);
  }

  /** Records fetched and accepted so far, earlier attempts included. */
  get fetched(): number {
    return this.cp?.counts.fetched ?? 0;
  }

  /** Partitions in the checkpoint (walked or not). */
  get size(): number {
    return this.cp?.partitions.length ?? 0;
  }

  partition(index: number): WalkPartition | undefined {
    return this.cp?.partitions[index];
  }

  /** Indices of the partitions not walked to their end. */
  unwalked(): number[] {
    return (this.cp?.partitions ?? []).flatMap((p, i) => (p.done ? [] : [i]));
  }

  /**
   * The split settled these partitions and has these pieces left: both in the checkpoint before this returns
   * (with their indices, to walk at once); `saved` resolves once they are saved.
   */
  addPlanned(progress: PartitionProgress): { added: number[]; saved: Promise<void> } {
    const cp = this.cp;
    if (!cp) return { added: [], saved: Promise.resolve() };
    const added = progress.settled.map(
      (p) => cp.partitions.push({ filter: p.filter, state: null, done: false, count: p.count }) - 1,
    );
    cp.plan = { complete: progress.pending.length === 0, pending: progress.pending, countsLeft: progress.countsLeft };
    return { added, saved: this.save() };
  }

  /**
   * The CRM answered one batch of partition `index`: its reveals are booked and its keys join the matched set, then
   * counters, warnings (redacted reasons) and the partition's journey move past the batch and the checkpoint is
   * saved. A batch Redis could not record counts as `uncommitted`. Throws CrmRefusedError when the run's first
   * writes were all refused for one reason (the walk stops; the run fails).
   */
  async commit(index: number, batch: JourneyPage, result: WriteResult): Promise<void> {
    const cp = this.cp;
    if (!cp) return;
    try {
      // The CRM holds these persons' contacts now: later runs pass them by without paying again.
      if (!this.dryRun && batch.revealed)
        await this.deps.source.bookReveals(this.deps.request.runId, batch.revealed, batch.revealTally ?? new Map());
      // Before the checkpoint moves past the batch: a resumed attempt never misses a committed batch's keys.
      if (this.deps.matched)
        await this.deps.matched(
          result.outcomes.map((o) => o.key),
          cp.partitions[index]?.filter ?? {},
        );
      if (this.deps.suppressed && !this.dryRun && batch.suppressedKeys?.length)
        await this.deps.suppressed(batch.suppressedKeys);
    } catch (err) {
      this.uncommitted(result.outcomes, batch);
      throw err;
    }
    if (this.mapping)
      cp.absentPaths = tallyAbsent(
        cp.absentPaths,
        this.mapping,
        batch.records,
        batch.revealSkipped !== undefined || batch.contactsLeftOut === true,
      );
    addCounts(cp.counts, batchCounts(result, batch));
    if (result.linkErrors > 0) cp.linkErrors = (cp.linkErrors ?? 0) + result.linkErrors;
    if (result.linked > 0) cp.linked = (cp.linked ?? 0) + result.linked;
    const warnings = addWarnings(cp.warnings, warningReasons(result));
    if (warnings) cp.warnings = warnings;
    this.deps.request.onProgress?.({
      fetched: cp.counts.fetched,
      target: this.target,
      tokensSpent: cp.counts.tokensSpent,
      creditsSpent: cp.counts.creditsSpent,
      elapsedMs: Date.now() - this.deps.started,
    });
    // A save that fails leaves the checkpoint here past the batch: the run's end saves it again.
    this.move(index, batch.done ? null : batch.checkpoint, batch.done);
    // With the move, nothing awaited between: the next save writes the ids and a checkpoint past their batch.
    this.deps.ids?.committed(batch.admitted ?? []);
    await (this.dryRun ? this.deps.ids?.save() : this.save());
    this.refusals.book(result);
  }

  /**
   * The CRM answered these outcomes of a batch the run cannot commit (Redis refused what follows a write, or another
   * part of its write failed; `batch`: its page's figures, when not counted before). If the CRM took any record,
   * they count in this attempt's figures, so the summary says what the CRM holds; never in the checkpoint, which
   * stays before the batch: a resumed attempt writes it again and counts it then.
   */
  uncommitted(outcomes: AnsweredOutcomes, batch?: JourneyPage): void {
    if (!landedAny(outcomes)) return;
    const result = summarize(outcomes.filter((o): o is WriteOutcome => o !== undefined));
    addCounts(this.unrecorded, batchCounts(result, batch));
  }

  /** Partition `index` has nothing more to walk (its journey ended without a batch left to commit). */
  walked(index: number): void {
    this.move(index, null, true);
  }

  /** Partition `index` is walked afresh (its saved journey state belongs to another search body). */
  restart(index: number): void {
    this.move(index, null, false);
  }

  /** Partition `index` is done, replaced by `pieces` (the live index grew past the depth limit); their indices. */
  async replace(index: number, pieces: Filter[]): Promise<number[]> {
    const cp = this.cp;
    if (!cp) return [];
    this.move(index, null, true);
    const added = pieces.map((filter) => cp.partitions.push({ filter, state: null, done: false }) - 1);
    await this.save();
    return added;
  }

  private move(index: number, state: JourneyCheckpoint | null, done: boolean): void {
    const partition = this.cp?.partitions[index];
    if (this.cp && partition) this.cp.partitions[index] = { ...partition, state, done };
  }

  /** The run's counters now, earlier attempts included, with what the CRM took of batches not committed. */
  counts(): RunCounts {
    const accumulated = structuredClone(this.cp?.counts ?? this.earlier ?? emptyCounts());
    addCounts(accumulated, this.unrecorded);
    return runCounts(accumulated, this.earlier, this.deps.source.stats());
  }

  /** The counters a resumed attempt goes on from: those of committed batches (the others are written again). */
  private committedCounts(): RunCounts {
    return runCounts(this.cp?.counts ?? this.earlier ?? emptyCounts(), this.earlier, this.deps.source.stats());
  }

  /** Link errors, warnings and partition count so far; paths absent in (nearly) every record are said here, once. */
  get findings(): {
    linkErrors?: number;
    links?: RunSummary['links'];
    warnings?: RunWarnings;
    partitions?: number;
  } {
    const cp = this.cp;
    if (!cp) return {};
    const absent = absentPathWarnings(cp.absentPaths).map((text): Warning => ({
      code: 'absent_path',
      reason: redactText(text),
      line: redactText(text),
    }));
    const warnings = addWarnings(cp.warnings, absent);
    return {
      ...(cp.linkErrors ? { linkErrors: cp.linkErrors } : {}),
      ...(cp.linked || cp.linkErrors
        ? { links: { company: { linked: cp.linked ?? 0, linkFailed: cp.linkErrors ?? 0 } } }
        : {}),
      ...(warnings ? { warnings } : {}),
      partitions: cp.partitions.length,
    };
  }

  /** Saves the checkpoint (after every accepted write; never in a dry run). */
  async save(ttlMs?: number): Promise<void> {
    const cp = this.cp;
    if (!cp || this.dryRun) return;
    const { requests, throttled } = this.committedCounts();
    cp.counts = { ...cp.counts, requests, throttled };
    await this.deps.store.save(cp, ttlMs);
  }

  /**
   * The run ended: its checkpoint is deleted or saved as `fate` says. Unanswered pages the client booked at their
   * worst case count too, in the summary and a resumed attempt.
   */
  async end(fate: CheckpointFate, onSaveError: (err: unknown) => void): Promise<void> {
    if (!this.cp || this.dryRun) return;
    this.cp.counts = this.committedCounts();
    if (!fate.keep) await this.deps.store.clear(this.deps.request.runId);
    // A checkpoint that cannot be saved costs tokens on resume (journeys restart), not the outcome.
    else await this.save(fate.ttlMs).catch(onSaveError);
  }
}
