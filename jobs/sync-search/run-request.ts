/** What one run needs (its dependencies) and what it is asked to do: the inputs of `syncSearch`. */
import type { Redis } from 'ioredis';
import type { AppConfig } from '../../src/config/index.js';
import type { RunProgress } from '../../src/runs/progress-bar.js';
import type { Logger } from '../../src/shared/logger.js';
import type { RunSpend } from './plan-forecast.js';
import type { RunPlan } from './plan-run.js';
import type { WalkStats } from './walk-context.js';

export interface SyncDeps {
  config: AppConfig;
  /** Run lock, checkpoints, history, rate governor and budget ledger state. */
  redis: Redis;
  /** Key prefix of all of the above (the queue prefix). */
  prefix: string;
  logger: Logger;
  checkpointTtlMs?: number;
  lockTtlMs?: number;
  /**
   * The clock refresh on change reads partition ages from (ms since the epoch); tests and benchmarks compress days with
   * it.
   */
  now?: () => number;
}

export interface RunRequest {
  search: string;
  /** Stable across the attempts of one queued run: it finds the run's checkpoint and re-takes its lock. */
  runId: string;
  dryRun?: boolean;
  /** A dry run walks at most this many records (a quick look): `completed`, `limitedBy: 'sample'`. */
  sample?: number;
  /** Send every record even when its change hash says it is unchanged (`run/trigger --full-resync`). */
  fullResync?: boolean;
  /** What started the run (the job's `trigger`, `cli` for `prospect-sync run`), kept in its summary. */
  trigger?: 'schedule' | 'manual' | 'cli';
  /**
   * Nothing resumes this attempt when it fails or is stopped (`run` in a terminal, a queued run's last attempt): such
   * an ending clears its checkpoint and what it matched. Redis out of memory or away is resumed all the same.
   */
  lastAttempt?: boolean;
  /** Shutdown: the batch in flight is finished and checkpointed, then the run returns promptly. */
  signal?: AbortSignal;
  onPlan?: (plan: RunPlan) => void;
  /** Before the walk's first token: what the run will spend (jobs/sync-search/plan-run.ts `runSpend`). */
  onSpend?: (spend: RunSpend) => void;
  onProgress?: (progress: RunProgress) => void;
  /** After the walk: peak journeys in flight and peak records fetched but not yet written. */
  onWalk?: (stats: WalkStats) => void;
}
