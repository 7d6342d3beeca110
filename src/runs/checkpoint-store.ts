import type { ChainableCommander, Redis } from 'ioredis';
import { execBatch } from '../shared/exec-batch.js';
import { runKeys, DEFAULT_RUNS_PREFIX } from './run-keys.js';
import { eraseMentions, type KeyHit } from '../shared/key-erase.js';
import type { RunCounts } from './run-summary.js';
import type { AbsentTally } from '../crm/absent-paths.js';
import type { RunWarnings } from './run-warnings.js';
import type { RefreshState } from './refresh-registry.js';

/** Where one partition's journey stands: its filter and the source client's resumable state (`null` = not started). */
export interface PartitionCheckpoint<S = unknown> {
  filter: Record<string, unknown>;
  state: S | null;
  done: boolean;
  /**
   * Its free count when planned: the walk takes the largest first (absent: split off during the walk, or an older
   * checkpoint).
   */
  count?: number;
}

/**
 * How far the plan's split got: a run walks partitions as soon as they are settled, so a run stopped mid-plan
 * holds the settled partitions (above) and the headcount ranges still to split, with their counts and the
 * count requests the split had left: a resumed run splits only those.
 */
export interface PlanCheckpoint {
  complete: boolean;
  /** Ranges of the search's `company.headcount` not yet split into partitions (empty when complete). */
  pending: { gte: number; lte: number; count: number; countries?: string[] }[];
  countsLeft: number;
}

/**
 * What a run needs to resume after a crash, a stall or a budget delay: its id, its counters so far, the planned
 * count and, per partition, the filter (re-partitioning on resume could split differently) and the journey state
 * after the last batch the CRM accepted, and how far the split got (`plan`). Filters, counts and cursors only: no
 * records, no contact details, no secrets.
 */
export interface RunCheckpoint<S = unknown> {
  runId: string;
  startedAt: string;
  counted: number;
  counts: RunCounts;
  /** Link errors and warnings of the batches accepted so far (absent: none). */
  linkErrors?: number;
  /** Records linked to their company so far (absent: none). */
  linked?: number;
  warnings?: RunWarnings;
  /** Mapped record paths the records booked so far lacked (absent: none booked yet, or an older version). */
  absentPaths?: AbsentTally;
  partitions: PartitionCheckpoint<S>[];
  /** Absent (checkpoints of older versions): the plan was complete. */
  plan?: PlanCheckpoint;
  /** Refresh mode `changed`: what the run chose to walk (absent: a full walk). */
  refresh?: RefreshState;
}

export interface CheckpointStoreOptions {
  prefix?: string;
  /** Cursors must not be stored long term: an expired checkpoint restarts the journeys (upserts are idempotent). */
  ttlMs?: number;
  /** State that must move with the checkpoint: written in the same transaction as each save. */
  along?: CheckpointAlong;
}

/** Writes that go into Redis with a checkpoint, or not at all (the run's record ids: run-record-ids.ts). */
export interface CheckpointAlong {
  /** Queues its writes before the checkpoint's; the answer tells whether the transaction was applied. */
  queue(batch: ChainableCommander): (applied: boolean) => void;
}

export const DEFAULT_CHECKPOINT_TTL_MS = 6 * 3600_000;

/** One transaction: `along`'s writes, then `add`'s; `along` is told whether it was applied. */
export async function execAlong(
  redis: Redis,
  along: CheckpointAlong,
  add: (batch: ChainableCommander) => void = () => undefined,
): Promise<void> {
  const batch = redis.multi();
  const settle = along.queue(batch);
  add(batch);
  await execBatch(batch).then(
    () => settle(true),
    (err: unknown) => {
      settle(false);
      throw err;
    },
  );
}

/**
 * Checkpoints of one search in a Redis key with a TTL. Saves are serialised and coalesced (the latest snapshot
 * wins), so parallel partitions can save after each accepted batch without racing each other.
 */
export class CheckpointStore<S = unknown> {
  private readonly key: string;
  private readonly ttlMs: number;
  private readonly along: CheckpointAlong | undefined;
  private pending: string | null = null;
  private pendingTtl = 0;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly redis: Redis,
    search: string,
    options: CheckpointStoreOptions = {},
  ) {
    this.key = runKeys(search, options.prefix ?? DEFAULT_RUNS_PREFIX).checkpoint;
    this.ttlMs = options.ttlMs ?? DEFAULT_CHECKPOINT_TTL_MS;
    this.along = options.along;
  }

  /** The saved checkpoint of run `runId`, or null (none, expired, or another run's). */
  async load(runId: string): Promise<RunCheckpoint<S> | null> {
    const raw = await this.redis.get(this.key);
    if (!raw) return null;
    const cp = JSON.parse(raw) as RunCheckpoint<S>;
    return cp.runId === runId ? cp : null;
  }

  /** Snapshots `cp` now and writes it; resolves once it (or a later snapshot) is in Redis. */
  save(cp: RunCheckpoint<S>, ttlMs: number = this.ttlMs): Promise<void> {
    const first = this.pending === null;
    this.pending = JSON.stringify(cp);
    this.pendingTtl = ttlMs;
    if (first) {
      // A failed write rejects its callers but must not wedge later saves.
      this.writing = this.writing
        .catch(() => undefined)
        .then(async () => {
          const payload = this.pending;
          const ttl = this.pendingTtl;
          this.pending = null;
          if (payload !== null) await this.write(payload, ttl);
        });
    }
    return this.writing;
  }

  private async write(payload: string, ttl: number): Promise<void> {
    if (this.along) await execAlong(this.redis, this.along, (batch) => batch.set(this.key, payload, 'PX', ttl));
    else await this.redis.set(this.key, payload, 'PX', ttl);
  }

  async clear(runId: string): Promise<void> {
    await this.writing.catch(() => undefined);
    const cur = await this.load(runId);
    if (cur) await this.redis.del(this.key);
  }
}

/** Erasure (`forget`): checkpoints (warnings, journey state) naming one of `texts`, the names erased. */
export function forgetInCheckpoints(
  redis: Redis,
  texts: readonly string[],
  apply: boolean,
  prefix: string = DEFAULT_RUNS_PREFIX,
): Promise<KeyHit[]> {
  return eraseMentions(redis, runKeys('*', prefix).checkpoint, texts, 'redact', apply);
}
