/**
 * `run <search> [--dry-run] [--full-resync] [--json] [--config f]`: one sync in this process, no scheduler. It takes
 * the same run lock as the queue job. `--full-resync` sends every record, also those whose change hash is unchanged.
 * Progress bar on a TTY (stderr); `--json` prints the run summary as the last stdout line.
 * A search with `after:` runs at once (a one-off), saying on stderr which searches it follows and whether they completed.
 * Exit: 0 completed, 1 failed (also: another run of the search is active), 2 config error, 3 partial or delayed.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { CONFIG_ERROR_CODES, errorInfo, followedRuns, syncSearch } from '../../../jobs/sync-search/index.js';
import { formatSummary } from '../../runs/format-summary.js';
import { createProgressBar } from '../../runs/progress-bar.js';
import { exitCodeOf, notStartedSummary, type RunSummary } from '../../runs/run-summary.js';
import { createLogger } from '../../shared/logger.js';
import { openSearchCommand, printJson, type ConfigOption, type JsonOption } from '../command-context.js';
import { EXIT } from '../exit-codes.js';

export interface RunOptions extends ConfigOption, JsonOption {
  dryRun?: boolean;
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
  const after = config.searches.find((s) => s.name === search)?.after;
  if (after) process.stderr.write(await followedLine(redis, prefix, after));
  const bar = createProgressBar(process.stderr);
  const abort = new AbortController();
  const onSignal = (): void => abort.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  let summary: RunSummary;
  try {
    summary = await syncSearch(
      { config, redis, prefix, logger },
      { search, runId, dryRun, fullResync, trigger: 'cli', signal: abort.signal, onProgress: (p) => bar.update(p) },
    );
  } catch (err) {
    summary = notStartedSummary(search, runId, dryRun, errorInfo(err));
  } finally {
    bar.done();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    cmd.close();
  }
  if (json) printJson(summary);
  else process.stdout.write(`${formatSummary(summary)}\n`);
  if (summary.error && CONFIG_ERROR_CODES.has(summary.error.code)) return EXIT.config;
  return exitCodeOf(summary);
}

/** `runs after dach-software (last complete run 2026-11-27T05:00:12Z), ...` or `... (never completed: links to it may fail)`. */
async function followedLine(redis: Redis, prefix: string, after: readonly string[]): Promise<string> {
  const followed = await followedRuns(redis, prefix, after);
  const parts = followed.map(({ search, lastComplete }) =>
    lastComplete
      ? `${search} (last complete run ${lastComplete.finishedAt})`
      : `${search} (never completed: what links to it may fail)`,
  );
  return `runs after ${parts.join(', ')}; \`run\` does not wait for them\n`;
}
