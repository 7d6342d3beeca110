/**
 * How a command's failure reaches the user: one exit code per kind of problem (src/cli/exit-codes.ts) and one way
 * to print it — text on stderr, or with --json one JSON object as the last stdout line.
 */
import { ConfigError, formatIssue, type ConfigIssue } from '../config/index.js';
import { AppError } from '../shared/app-error.js';
import { RedisEvictionPolicyError } from '../shared/redis-eviction.js';
import { EXIT, type ExitCode } from './exit-codes.js';
import { RedisUnreachableError } from './redis-connect.js';

/** The command line is wrong: unknown command or option, missing argument, invalid option value. */
export class UsageError extends AppError {
  constructor(message: string) {
    super('usage_error', message);
  }
}

/** The command names a search the config does not have. */
export class UnknownSearchError extends AppError {
  constructor(search: string, known: readonly string[]) {
    super('search_not_found', `unknown search '${search}' (known: ${known.join(', ') || 'none'})`, {
      details: { search },
    });
  }
}

/** The job layer's error vocabulary, loaded only when an error needs it (it pulls in the whole sync code). */
const runErrors = async () => {
  const { CONFIG_ERROR_CODES, errorInfo } = await import('../../jobs/sync-search/index.js');
  return { CONFIG_ERROR_CODES, errorInfo };
};

/**
 * The exit code of an error. Config, credential and schema problems of any remote share `config` (the codes in
 * CONFIG_ERROR_CODES: a refused Sales-Intelligence secret exits like a refused HubSpot token).
 */
export async function exitCodeForError(err: unknown): Promise<ExitCode> {
  if (err instanceof RedisUnreachableError) return EXIT.redisUnreachable;
  if (
    err instanceof UsageError ||
    err instanceof ConfigError ||
    err instanceof UnknownSearchError ||
    err instanceof RedisEvictionPolicyError
  )
    return EXIT.config;
  if (err instanceof AppError && (await runErrors()).CONFIG_ERROR_CODES.has(err.code)) return EXIT.config;
  return EXIT.failed;
}

export interface ErrorReport {
  code: string;
  message: string;
  issues?: ConfigIssue[];
}

/** Code and message to show (contact details masked by errorInfo); a config error keeps its file:line issues. */
export async function errorReport(err: unknown): Promise<ErrorReport> {
  if (err instanceof ConfigError)
    return { code: err.code, message: err.issues.map(formatIssue).join('\n'), issues: err.issues };
  if (
    err instanceof UsageError ||
    err instanceof UnknownSearchError ||
    err instanceof RedisUnreachableError ||
    err instanceof RedisEvictionPolicyError
  )
    return { code: err.code, message: err.message };
  return (await runErrors()).errorInfo(err);
}

/** Prints `err` for `command` and returns its exit code. */
export async function reportError(err: unknown, opts: { command: string; json: boolean }): Promise<ExitCode> {
  const report = await errorReport(err);
  if (opts.json) process.stdout.write(`${JSON.stringify({ error: report })}\n`);
  else if (err instanceof ConfigError) process.stderr.write(`${report.message}\n`);
  else process.stderr.write(`prospect-sync ${opts.command}: ${report.message}\n`);
  return exitCodeForError(err);
}
