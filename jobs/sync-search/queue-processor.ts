/**
 * The BullMQ adapter of the sync run: one run per job, resumed from its checkpoint by every later attempt (same run
 * id). `delayed` -> moved to delayed until the budget resets (no attempt burned); config and CRM credential/schema
 * errors fail at once; a CRM limit (daily limit, API share) and other failures are thrown so BullMQ retries with
 * backoff from the checkpoint (CRM limits wait longer); an aborted run throws so the worker puts it back. A run
 * Redis refused (out of memory) is delayed briefly without burning an attempt; the last attempt's failure clears
 * what the run kept (its checkpoint, its matched set).
 */
import { configCredentialHint, type AppConfig } from '../../src/config/index.js';
import type { SyncJobResult, SyncProcessor } from '../../src/queue/job-data.js';
import { recordRun } from '../../src/runs/run-history.js';
import { RunAlreadyActiveError } from '../../src/runs/run-lock.js';
import { notStartedSummary, pacedSummary, type RunSummary } from '../../src/runs/run-summary.js';
import type { RunRequest, SyncDeps } from './run-request.js';
import { REFUSAL_CODES } from './refusal-errors.js';
import { CONFIG_ERROR_CODES, errorInfo, REDIS_UNAVAILABLE, RunAbortedError, RunFailedError } from './run-errors.js';
import { afterWait, type RunQueue } from './run-order.js';
import { tokenPaceDecision } from './token-pace-gate.js';

/**
 * `config`, or `getConfig` where the config can be reloaded (SIGHUP): each job reads it once at its start, so a run
 * keeps the config it started with while the next one sees the new.
 */
export type ProcessorDeps = Omit<SyncDeps, 'config'> & { runQueue?: RunQueue } & (
    { config: AppConfig; getConfig?: () => AppConfig } | { config?: AppConfig; getConfig: () => AppConfig }
  );

/** When another attempt of the same run holds its lock, the job looks again after this long. */
const SAME_RUN_RECHECK_MS = 15_000;

/** A run Redis refused goes on after this long (its end already waited for Redis to take writes again). */
const REDIS_RESUME_MS = 1_000;

/** Progress is pushed to the job at most this often. */
const PROGRESS_EVERY_MS = 1000;

/** The run itself (`syncSearch`), passed in so this adapter does not import the module that re-exports it. */
export type RunSearch = (deps: SyncDeps, request: RunRequest) => Promise<RunSummary>;

export function queueProcessor(syncSearch: RunSearch, deps: ProcessorDeps): SyncProcessor {
  const configNow = (): AppConfig => (deps.getConfig ? deps.getConfig() : (deps.config as AppConfig));
  return async (job, token, signal): Promise<SyncJobResult> => {
    const { search, runId } = job.data;
    // Loaded here, not at the top: `prospect-sync run` imports this module but never needs BullMQ (~170 modules).
    const { DelayedError, UnrecoverableError } = await import('bullmq');
    const runDeps: SyncDeps = { ...deps, config: configNow() };
    // `after:`: the searches this one follows have a run queued or active, or never completed: wait (delayed).
    const queuedAt = Date.parse(job.data.requestedAt) || job.timestamp;
    const saved = runDeps.config.searches.find((s) => s.name === search);
    const destination = saved ? runDeps.config.destinations[saved.destination] : undefined;
    const wait = await afterWait(saved, queuedAt, job.attemptsStarted - 1, {
      redis: deps.redis,
      prefix: deps.prefix,
      runQueue: deps.runQueue,
      ...(destination ? { destination } : {}),
    });
    if (wait?.late)
      deps.logger.warn(
        { search, runId, waitFor: wait.waitFor },
        'run starts although searches it runs after are not done: it waited long enough',
      );
    else if (wait) {
      if (wait.queued.length > 0)
        deps.logger.info({ search, runId, queued: wait.queued }, 'queued the never completed searches it runs after');
      await job.updateProgress({ waitingFor: wait.waitFor, since: queuedAt });
      await job.moveToDelayed(wait.lookAgainAt, token);
      throw new DelayedError();
    }
    // Pacing: a run that would leave less than the searches of higher priority need waits (delayed, not failed).
    const paced = job.data.force === true ? null : await tokenPaceDecision(runDeps, search);
    if (paced?.delay && paced.retryAt !== null) {
      const summary = pacedSummary(search, runId, new Date(paced.retryAt));
      await recordRun(deps.redis, summary, { prefix: deps.prefix });
      await job.updateProgress({
        paced: { needed: paced.needed, run: paced.run, spendable: paced.spendable },
        resumeAt: summary.resumeAt,
      });
      await job.moveToDelayed(paced.retryAt, token);
      throw new DelayedError();
    }
    let lastProgress = 0;
    let summary: RunSummary;
    try {
      summary = await syncSearch(runDeps, {
        search,
        runId,
        signal,
        fullResync: job.data.fullResync === true,
        trigger: job.data.trigger,
        lastAttempt: job.attemptsMade + 1 >= ((job.opts as { attempts?: number } | undefined)?.attempts ?? 1),
        onProgress: (p) => {
          if (Date.now() - lastProgress < PROGRESS_EVERY_MS) return;
          lastProgress = Date.now();
          void job
            .updateProgress({
              fetched: p.fetched,
              target: p.target,
              tokensSpent: p.tokensSpent,
              creditsSpent: p.creditsSpent,
            })
            .catch(() => undefined);
        },
      });
    } catch (err) {
      if (err instanceof RunAlreadyActiveError && err.details?.holder === runId) {
        // Another attempt of this very run still walks (the job stalled while its worker lived on): look again later.
        await job.moveToDelayed(Date.now() + SAME_RUN_RECHECK_MS, token);
        throw new DelayedError();
      }
      // Not started: another run holds the search (e.g. `run` in a terminal), or the search is refused. Reported in
      // the run history and as the job's result; the next schedule runs it again.
      const caught = errorInfo(err);
      const hint = configCredentialHint(runDeps.config, caught.code, caught.message, saved?.destination);
      const info = { ...caught, message: hint };
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
    if (summary.status === 'failed' && summary.error?.code === REDIS_UNAVAILABLE && deps.redis.status === 'ready') {
      // Redis refused the run's writes (out of memory) and takes them again (the run's end waited for that): the run
      // goes on from its checkpoint, no attempt burned.
      await job.moveToDelayed(Date.now() + REDIS_RESUME_MS, token);
      throw new DelayedError();
    }
    if (summary.status === 'failed') {
      const cause = summary.error ?? { code: 'run_failed', message: 'unknown' };
      // hook (refusal guard): the CRM refused the run's records; a retry would spend the same tokens for the same
      // refusal
      if (CONFIG_ERROR_CODES.has(cause.code) || REFUSAL_CODES.has(cause.code))
        throw new UnrecoverableError(cause.message);
      if (summary.stopReason === 'aborted') throw new RunAbortedError(search);
      throw new RunFailedError(search, cause, job.attemptsMade);
    }
    return summary;
  };
}
