/**
 * `run <search> [--dry-run [--sample n]] [--full-resync] [--json] [--config f]`: one sync in this process, no
 * scheduler. It takes the same run lock as the queue job. `--full-resync` sends every record, also those whose change
 * hash is unchanged. A dry run says on stderr what it will spend before its first token (no credit: no contacts).
 * Progress bar on a TTY (stderr); `--json` prints the run summary as the last stdout line.
 * A search with `after:` runs at once (a one-off), saying on stderr which searches it follows and whether they
 * completed.
 * Exit: 0 completed, 1 failed (also: another run of the search is active), 2 config error, 3 partial or delayed.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import {
  CONFIG_ERROR_CODES,
  errorInfo,
  followedRuns,
  followerInstance,
  type FollowerInstance,
  openSource,
  REDIS_UNAVAILABLE,
  syncSearch,
  type RunRequest,
  type RunSpend,
} from '../../../jobs/sync-search/index.js';
import { filterIssues, formatIssue, searchTimeZone, withCredentialHint } from '../../config/index.js';
import { formatSummary } from '../../runs/format-summary.js';
import { createProgressBar } from '../../runs/progress-bar.js';
import { exitCodeOf, notStartedSummary, type RunSummary } from '../../runs/run-summary.js';
import { sleep } from '../../shared/abortable-sleep.js';
import { backoffDelayMs } from '../../shared/backoff.js';
import { createLogger, type Logger } from '../../shared/logger.js';
import { MEMORY_WAIT_BACKOFF } from '../../shared/redis-memory-wait.js';
import {
  openSearchCommand,
  printJson,
  type ConfigOption,
  type JsonOption,
  type SearchCommand,
} from '../command-context.js';
import { askFilter } from '../filter-issues.js';
import { EXIT } from '../exit-codes.js';

export interface RunOptions extends ConfigOption, JsonOption {
  dryRun?: boolean;
  /** With `dryRun`: walk at most this many records. */
  sample?: number;
  fullResync?: boolean;
}

export async function runCommand(name: string, opts: RunOptions): Promise<number> {
  const cmd = await openSearchCommand(name, opts.config);
  const { search, config, redis, prefix } = cmd;
  const json = opts.json === true;
  const dryRun = opts.dryRun === true;
  const fullResync = opts.fullResync === true;
  const runId = randomUUID();
  // Logs go to stderr as JSON only when asked (LOG_LEVEL); the bar and the summary are the user interface.
  const logger = createLogger({ level: process.env.LOG_LEVEL ?? 'silent' }).child({ cmd: 'run' });
  const saved = config.searches.find((s) => s.name === search)!;
  const { destination } = saved;
  if (saved.after) {
    const follower = await followerInstance(redis, prefix, config.destinations[saved.destination], Date.now());
    process.stderr.write(await followedLine(redis, prefix, saved.after, follower));
  }
  const bar = createProgressBar(process.stderr);
  const abort = new AbortController();
  const onSignal = (): void => abort.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  let summary: RunSummary;
  const request: RunRequest = {
    search,
    runId,
    dryRun,
    ...(dryRun && opts.sample !== undefined ? { sample: opts.sample } : {}),
    fullResync,
    trigger: 'cli',
    // nothing resumes a run of this terminal but this command, and it does so only when Redis refused writes
    lastAttempt: true,
    signal: abort.signal,
    onProgress: (p) => bar.update(p),
    // said before the first token, on stderr (stdout's last line stays the summary)
    onSpend: (spend) => {
      if (spend.dryRun) process.stderr.write(`${formatSpend(spend)}\n`);
    },
  };
  try {
    summary = await syncSearch({ config, redis, prefix, logger }, request);
    // Redis out of memory: the run's end waited for memory to free; the run goes on from its checkpoint.
    for (let resumes = 1; redisRefused(summary, redis) && !abort.signal.aborted; resumes++) {
      process.stderr.write(`Redis refused writes (${summary.error?.message}): the run goes on from its checkpoint\n`);
      await sleep(backoffDelayMs(resumes, MEMORY_WAIT_BACKOFF), abort.signal).catch(() => undefined);
      if (!abort.signal.aborted) summary = await syncSearch({ config, redis, prefix, logger }, request);
    }
  } catch (err) {
    summary = notStartedSummary(search, runId, dryRun, errorInfo(err));
  } finally {
    bar.done();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  if (summary.error) {
    const message = withCredentialHint(cmd.loaded, summary.error.code, summary.error.message, destination);
    summary = { ...summary, error: { ...summary.error, message } };
  }
  if (json) printJson(summary);
  else process.stdout.write(`${formatSummary(summary, searchTimeZone(config.searches, search))}\n`);
  // The API refused the filter: where, in the config (one more count: no token).
  if (summary.error?.code === 'source_validation_failed') await reportFilterRefusal(cmd, logger);
  cmd.close();
  if (summary.error && CONFIG_ERROR_CODES.has(summary.error.code)) return EXIT.config;
  if (summary.error?.code === REDIS_UNAVAILABLE) return EXIT.redisUnreachable;
  return exitCodeOf(summary);
}

/** The run failed because Redis refused its writes, and Redis answers again (a connection lost stays lost). */
function redisRefused(summary: RunSummary, redis: Redis): boolean {
  return summary.status === 'failed' && summary.error?.code === REDIS_UNAVAILABLE && redis.status === 'ready';
}

/** A dry run's spend, before its first token: its walk's tokens, no credit, and what a real run would spend now. */
function formatSpend(spend: RunSpend): string {
  const real = spend.realRun
    ? `; a real run now: ${spend.realRun.credits} credits, ${spend.realRun.tokens} tokens (plan's forecast)`
    : '';
  return `dry run: walks up to ${spend.records} records without contacts: ${spend.tokens} tokens, 0 credits${real}`;
}

/** The refused keys and values of the search's filter on stderr, each at its config line. */
async function reportFilterRefusal(cmd: SearchCommand, logger: Logger): Promise<void> {
  const source = openSource(cmd.config, cmd.redis, cmd.prefix, logger);
  try {
    const index = cmd.loaded.config.searches.findIndex((s) => s.name === cmd.search);
    const issues = filterIssues(cmd.loaded, index, await askFilter(source, cmd.loaded, index));
    for (const issue of issues) process.stderr.write(`${formatIssue(issue)}\n`);
  } catch {
    // the summary above already says what failed
  } finally {
    await source.close();
  }
}

/**
 * `runs after dach-software (last complete run 2026-11-27T05:00:12Z), ...` or `... (never completed: links to it may
 * fail)`.
 */
async function followedLine(
  redis: Redis,
  prefix: string,
  after: readonly string[],
  follower: FollowerInstance | undefined,
): Promise<string> {
  const followed = await followedRuns(redis, prefix, after, follower);
  const parts = followed.map(({ search, lastComplete }) =>
    lastComplete
      ? `${search} (last complete run ${lastComplete.finishedAt})`
      : `${search} (never completed: what links to it may fail)`,
  );
  return `runs after ${parts.join(', ')}; \`run\` does not wait for them\n`;
}
