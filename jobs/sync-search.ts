/**
 * One run of one saved search, top to bottom as in docs/architecture.md:
 *   plan (free count, budget, caps, partitions) -> walk pages (partitions in parallel, fetch n+1 while n is written)
 *   -> map -> skip unchanged -> upsert -> checkpoint after the CRM accepted the batch -> run summary + history.
 * `syncSearch` is the run itself (used by the queue job and by `prospect-sync run`); `createSyncProcessor` adapts it
 * to BullMQ (delay on an exhausted budget, retry from the checkpoint on failure).
 */
import { DelayedError, UnrecoverableError } from 'bullmq';
import type { Redis } from 'ioredis';
import type { AppConfig } from '../src/config/index.js';
import type { SyncJobResult, SyncProcessor } from '../src/queue/job-data.js';
import { CheckpointStore, DEFAULT_CHECKPOINT_TTL_MS, type RunCheckpoint } from '../src/runs/checkpoint-store.js';
import { recordRun } from '../src/runs/run-history.js';
import { acquireRunLock } from '../src/runs/run-lock.js';
import type { RunProgress } from '../src/runs/progress-bar.js';
import { addCounts, emptyCounts, notStartedSummary, type RunCounts, type RunStatus, type RunSummary, type StopReason } from '../src/runs/run-summary.js';
import type { Logger } from '../src/shared/logger.js';
import { BudgetStopError, TokensExhaustedError } from '../src/source/index.js';
import type { BudgetCap, JourneyCheckpoint, JourneyPage, SourceClient } from '../src/source/index.js';
import { openDestination, type Destination } from './sync-search/open-destination.js';
import { openSource } from './sync-search/open-source.js';
import { planRun, type RunPlan } from './sync-search/plan-run.js';
import { resolveSearch } from './sync-search/resolve-search.js';
import { revealSummary } from './sync-search/reveal-summary.js';
import { CONFIG_ERROR_CODES, errorInfo, RunAbortedError, RunFailedError } from './sync-search/run-errors.js';
import { walkPartitions } from './sync-search/walk-partitions.js';

export interface SyncDeps {
  config: AppConfig;
  /** Run lock, checkpoints, history, rate governor and budget ledger state. */
  redis: Redis;
  /** Key prefix of all of the above (the queue prefix). */
  prefix: string;
  logger: Logger;
  checkpointTtlMs?: number;
  lockTtlMs?: number;
}

export interface RunRequest {
  search: string;
  /** Stable across the attempts of one queued run: it finds the run's checkpoint and re-takes its lock. */
  runId: string;
  dryRun?: boolean;
  /** Send every record even when its change hash says it is unchanged (`run/trigger --full-resync`). */
  fullResync?: boolean;
  /** Shutdown: the batch in flight is finished and checkpointed, then the run returns promptly. */
  signal?: AbortSignal;
  onPlan?: (plan: RunPlan) => void;
  onProgress?: (progress: RunProgress) => void;
}

const CAP_REASONS: Record<BudgetCap, StopReason> = {
  tokens_reserve: 'token_reserve',
  credits_per_run: 'credit_cap_run',
  credits_per_day: 'credit_cap_day',
  max_records: 'max_records',
};

/** Cursors are not kept long term: a delay longer than this lets the checkpoint expire and the journeys restart. */
const MAX_DELAYED_CHECKPOINT_MS = 48 * 3600_000;

/**
 * Runs one saved search to its end (or to a budget stop) and returns its summary, which is also appended to the
 * run history. Throws only before the run starts: config errors (unknown search, contacts not allowed) and
 * RunAlreadyActiveError. Every later failure is a `failed` summary with `error`, the checkpoint kept for a retry.
 */
export async function syncSearch(deps: SyncDeps, request: RunRequest): Promise<RunSummary> {
  const { config, redis, prefix, logger } = deps;
  const resolved = resolveSearch(config, request.search);
  const { search, view } = resolved;
  const log = logger.child({ search: search.name, runId: request.runId });
  const dryRun = request.dryRun ?? false;
  const store = new CheckpointStore<JourneyCheckpoint>(redis, search.name, { prefix, ttlMs: deps.checkpointTtlMs ?? DEFAULT_CHECKPOINT_TTL_MS });
  const lock = await acquireRunLock(redis, search.name, request.runId, { prefix, ...(deps.lockTtlMs ? { ttlMs: deps.lockTtlMs } : {}) });
  const signal = AbortSignal.any([request.signal ?? new AbortController().signal, lock.lost]);
  const resumed = dryRun ? null : await store.load(request.runId).catch(async (err: unknown) => {
    await lock.release().catch(() => undefined);
    throw err;
  });
  const started = Date.now();
  const startedAt = resumed?.startedAt ?? new Date(started).toISOString();
  const source = openSource(config, redis, prefix, log);
  let destination: Destination | undefined;
  let plan: RunPlan | undefined;
  let checkpoint: RunCheckpoint<JourneyCheckpoint> | undefined;
  let linkErrors = 0;

  // Requests and 429s of earlier attempts; this attempt's come from its own client's stats.
  const before = resumed ? structuredClone(resumed.counts) : undefined;
  const counts = (): RunCounts => runCounts(checkpoint?.counts ?? before ?? emptyCounts(), before, source);
  const finish = async (status: RunStatus, extra: Partial<RunSummary> = {}): Promise<RunSummary> => {
    const summary: RunSummary = {
      search: search.name, status, ...counts(), counted: plan?.counted ?? resumed?.counted ?? 0,
      durationMs: Date.now() - started, runId: request.runId, startedAt, finishedAt: new Date().toISOString(),
      dryRun, partitions: checkpoint?.partitions.length ?? plan?.partitions.length ?? 0,
      ...(linkErrors > 0 ? { linkErrors } : {}), ...revealSummary(source, counts()), ...extra,
    };
    await recordRun(redis, summary, { prefix });
    log.info({ status, stopReason: summary.stopReason, fetched: summary.fetched, created: summary.created, updated: summary.updated }, 'run finished');
    return summary;
  };
  const aborted = (): Promise<RunSummary> => finish('failed', { stopReason: 'aborted', error: errorInfo(new RunAbortedError(search.name)) });

  try {
    // 1. Plan: free count, budget and caps, partitions (a resumed run keeps its partitions and count).
    plan = await planRun(source, config, resolved, {
      runId: request.runId,
      signal,
      ...(resumed ? { counted: resumed.counted, partitions: resumed.partitions.map((p) => p.filter) } : {}),
    });
    request.onPlan?.(plan);
    if (plan.shortfall && !search.allowPartial && !resumed) {
      if (plan.tokensSpendable === 0) throw new BudgetStopError('tokens_reserve', 'no search tokens may be spent until the budget resets');
      return await finish('partial', { stopReason: plan.shortfall === 'tokens' ? 'token_reserve' : 'credit_cap_run', error: shortfallError(plan) });
    }
    checkpoint = resumed ?? {
      runId: request.runId, startedAt, counted: plan.counted, counts: emptyCounts(),
      partitions: plan.partitions.map((p) => ({ filter: p.filter, state: null, done: false })),
    };
    const cp = checkpoint;

    // 2. The CRM end: mapping, change detection, the sink (its schema checked once, unless nothing is written).
    destination = openDestination(config, search, resolved.destination, { redis, prefix, logger: log, fullResync: request.fullResync ?? false });
    const dest = destination;
    if (!dryRun) await dest.writer.prepare(dest.mapping.target, { signal });

    // 3. Walk: per partition, page -> (writer: map -> skip unchanged -> upsert) -> checkpoint.
    const progress = (): void =>
      request.onProgress?.({ fetched: cp.counts.fetched, target: plan?.target ?? 0, tokensSpent: cp.counts.tokensSpent, creditsSpent: cp.counts.creditsSpent, elapsedMs: Date.now() - started });
    const writePage = async (page: JourneyPage): Promise<void> => {
      const result = await dest.writer.write(page.records, dest.mapping, { runVolume: plan?.target ?? 0, dryRun });
      if (!dryRun && page.revealed) await source.markRevealed(page.revealed); // the CRM holds their contacts now
      linkErrors += result.linkErrors;
      addCounts(cp.counts, {
        fetched: page.returned, unique: page.records.length, created: result.created, updated: result.updated,
        unchanged: result.unchanged, rejected: result.rejected, tokensSpent: page.tokensCharged, creditsSpent: page.creditsCharged,
      });
      progress();
    };
    const saveCheckpoint = async (): Promise<void> => {
      if (dryRun) return;
      const { requests, throttled } = counts();
      cp.counts = { ...cp.counts, requests, throttled };
      await store.save(cp);
    };
    await walkPartitions({
      source, plan, runId: request.runId, view, idField: config.source.idField, mode: search.mode,
      checkpoint: cp, signal, writePage, saveCheckpoint, writeBatch: writeBatchSize(dest, plan),
    });

    // 4. Summary: an aborted walk keeps its checkpoint; a finished one clears it.
    if (signal.aborted && cp.partitions.some((p) => !p.done)) {
      await saveCheckpoint();
      return await aborted();
    }
    await store.clear(request.runId);
    // A capped cursor walk left records behind; an offset search is a top-N, complete once it has its N.
    if (plan.quota !== null && search.mode !== 'offset' && cp.counts.fetched >= plan.quota) return await finish('partial', { stopReason: 'max_records' });
    return await finish('completed');
  } catch (err) {
    if (checkpoint && !dryRun) checkpoint.counts = counts();
    const resetAt = await exhaustedUntil(err, config, source);
    if (resetAt) {
      // Stop spending; the checkpoint (kept until a little after the reset) lets the run resume where it was.
      const delayMs = Math.max(0, resetAt.getTime() - Date.now());
      if (checkpoint && !dryRun) await store.save(checkpoint, Math.max(DEFAULT_CHECKPOINT_TTL_MS, Math.min(MAX_DELAYED_CHECKPOINT_MS, delayMs + 3600_000)));
      return await finish('delayed', { stopReason: 'tokens_exhausted', resumeAt: resetAt.toISOString(), error: errorInfo(err) });
    }
    if (err instanceof BudgetStopError) {
      if (checkpoint) await store.clear(request.runId);
      return await finish('partial', { stopReason: CAP_REASONS[err.cap], error: errorInfo(err) });
    }
    if (checkpoint && !dryRun) await store.save(checkpoint).catch(() => undefined);
    if (signal.aborted) return await aborted();
    log.error({ err: errorInfo(err) }, 'run failed');
    return await finish('failed', { error: errorInfo(err) });
  } finally {
    source.endRun(request.runId);
    await Promise.allSettled([source.close(), destination?.sink.close()]);
    await lock.release().catch(() => undefined);
  }
}

/** Largest write (records) we gather before checkpointing: it bounds what a crash makes us fetch again. */
const MAX_WRITE_BATCH = 2_000;

/** Records per CRM write: the sink's preferred batch for this run's volume, never less than a page. */
function writeBatchSize(dest: Destination, plan: RunPlan): number {
  return Math.max(plan.pageSize, Math.min(MAX_WRITE_BATCH, dest.sink.preferredBatchSize(plan.target)));
}

/**
 * When the search-token allotment is used up, the reset time: on a 402 exhausted, or when our ledger stopped the
 * journey because the known balance reached zero with no reserve configured (the same state, seen one page
 * earlier). A reserve > 0 being reached is a cap of ours instead: the run ends partial.
 */
async function exhaustedUntil(err: unknown, config: AppConfig, source: SourceClient): Promise<Date | null> {
  if (err instanceof TokensExhaustedError) return err.resetAt;
  if (!(err instanceof BudgetStopError) || err.cap !== 'tokens_reserve' || config.source.tokens.reserve > 0) return null;
  const balance = await source.ledger.tokenBalance();
  return balance && balance.resetAt > Date.now() ? new Date(balance.resetAt) : null;
}

/**
 * The run's counters: what the checkpoint accumulated plus this attempt's requests and 429s from the client. Tokens
 * and credits take the client's figure when it is higher: a page sent but never answered (abort, timeout) yields no
 * page to add up, yet may have been charged, and the client books it at its worst case.
 */
function runCounts(accumulated: RunCounts, before: RunCounts | undefined, source: SourceClient): RunCounts {
  const stats = source.stats();
  const atLeast = (total: number, earlier: number, thisAttempt: number): number => earlier + Math.max(total - earlier, thisAttempt);
  return {
    ...accumulated,
    tokensSpent: atLeast(accumulated.tokensSpent, before?.tokensSpent ?? 0, stats.tokensSpent),
    creditsSpent: atLeast(accumulated.creditsSpent, before?.creditsSpent ?? 0, stats.creditsSpent),
    requests: { search: (before?.requests.search ?? 0) + stats.requests.search, count: (before?.requests.count ?? 0) + stats.requests.count },
    throttled: (before?.throttled ?? 0) + stats.throttled,
  };
}

function shortfallError(plan: RunPlan): { code: string; message: string } {
  const [what, have] = plan.shortfall === 'tokens' ? ['search tokens', plan.tokensSpendable] : ['credits', plan.creditsSpendable];
  const need = plan.shortfall === 'tokens' ? plan.tokensNeeded : plan.creditsNeeded;
  return {
    code: 'budget_insufficient',
    message: `the run needs ${need} ${what} but only ${have} may be spent; nothing was fetched (set allowPartial: true to take a partial run)`,
  };
}

/**
 * The BullMQ processor: a run per job, resumed from its checkpoint by every later attempt (same run id).
 * `delayed` -> moved to delayed until the budget resets (no attempt burned); config and CRM credential/schema errors
 * fail at once; a CRM limit (daily limit, API share) and other failures are thrown so BullMQ retries with backoff from
 * the checkpoint (CRM limits wait longer); an aborted run throws so the worker puts it back.
 */
export function createSyncProcessor(deps: SyncDeps): SyncProcessor {
  return async (job, token, signal): Promise<SyncJobResult> => {
    const { search, runId } = job.data;
    const fullResync = job.data.fullResync === true;
    let lastProgress = 0;
    let summary: RunSummary;
    try {
      summary = await syncSearch(deps, {
        search, runId, signal, fullResync,
        onProgress: (p) => {
          if (Date.now() - lastProgress < 1000) return;
          lastProgress = Date.now();
          void job.updateProgress({ fetched: p.fetched, target: p.target, tokensSpent: p.tokensSpent, creditsSpent: p.creditsSpent }).catch(() => undefined);
        },
      });
    } catch (err) {
      // Not started: another run holds the search (e.g. `run` in a terminal), or the search is refused. Reported in
      // the run history and as the job's result; the next schedule runs it again.
      const info = errorInfo(err);
      const refused = notStartedSummary(search, runId, false, info);
      await recordRun(deps.redis, refused, { prefix: deps.prefix });
      if (CONFIG_ERROR_CODES.has(info.code)) throw new UnrecoverableError(info.message);
      if (info.code === 'run_already_active') return refused;
      throw err;
    }
    if (summary.status === 'delayed' && summary.resumeAt) {
      await job.moveToDelayed(Date.parse(summary.resumeAt), token);
      throw new DelayedError();
    }
    if (summary.status === 'failed') {
      const cause = summary.error ?? { code: 'run_failed', message: 'unknown' };
      if (CONFIG_ERROR_CODES.has(cause.code)) throw new UnrecoverableError(cause.message);
      if (summary.stopReason === 'aborted') throw new RunAbortedError(search);
      throw new RunFailedError(search, cause, job.attemptsMade);
    }
    return summary;
  };
}
