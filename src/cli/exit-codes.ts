/**
 * Exit codes of every prospect-sync command, as the contract promises (docs/contract.md; the table: docs/cli.md).
 * One meaning per code, whichever command or remote the problem came from.
 */
export const EXIT = {
  /** Done; for `run`: the run completed. */
  ok: 0,
  /** The run (or command) failed; a retry may succeed. */
  failed: 1,
  /** The config, or credentials/schema it names at any remote, is wrong: fix it, retrying will not help. */
  config: 2,
  /** The command line is wrong (unknown command or option, bad option value). Same code as a config error. */
  usage: 2,
  /**
   * `run` stopped early: budget or credit caps (partial), or search tokens used up (delayed). Not maxRecords:
   * completed.
   */
  partial: 3,
  /** Redis ($REDIS_URL) did not answer: nothing was done. */
  redisUnreachable: 4,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];
