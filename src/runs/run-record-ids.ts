/**
 * The record ids a run has seen (its dedup set: a record found again in another partition, page or sweep is written
 * once), kept in Redis beside the run's matched set and not in the worker, so the worker holds nothing per record.
 * Redis holds the ids of the batches the run's checkpoint holds as written, no more: they are written in the same
 * transaction as the checkpoint that moves past their batch (`queue`, run by CheckpointStore.save). The ids of pages
 * fetched and not yet committed are held here, in the attempt (bounded by the pages in flight). So a resumed attempt
 * (a killed worker, a delayed run) dedups against every record the run wrote before, and fetches again, and admits,
 * the records of the pages it lost. Listpack buckets (run-record-ids.lua), with the matched set's TTL.
 */
import type { ChainableCommander, Redis } from 'ioredis';
import { chunks } from '../crm/chunks.js';
import { defineLua, luaScript, queueLua, runLua } from '../shared/lua-script.js';
import { execAlong, type CheckpointAlong } from './checkpoint-store.js';
import { RUN_MATCHED_TTL_SECONDS, runMatchedKey } from './membership-store.js';
import { DEFAULT_RUNS_PREFIX } from './run-keys.js';

const IDS = luaScript(
  'runRecordIds',
  1,
  new URL('../shared/linear-buckets.lua', import.meta.url),
  new URL('./run-record-ids.lua', import.meta.url),
);
/** Ids per script call: a page's or a write's worth, a bounded step whatever the run's size. */
const IDS_PER_CALL = 500;
/** Buckets deleted per step when the set is dropped. */
const DROP_STEP = 1000;

/** The meta hash of run `runId`'s record ids; its buckets are named after it (`<meta>:<address>`). */
export function runRecordIdsKey(search: string, runId: string, prefix: string = DEFAULT_RUNS_PREFIX): string {
  return `${runMatchedKey(search, runId, prefix)}:ids`;
}

export class RunRecordIds implements CheckpointAlong {
  private readonly meta: string;
  private readonly buckets: string;
  /** Ids admitted in this attempt and not yet in Redis: their pages are in flight or their batch not yet saved. */
  private readonly held = new Set<string>();
  /** Ids of committed batches, written with the next checkpoint save. */
  private unsaved: string[] = [];

  constructor(
    private readonly redis: Redis,
    search: string,
    runId: string,
    prefix: string = DEFAULT_RUNS_PREFIX,
  ) {
    this.meta = runRecordIdsKey(search, runId, prefix);
    this.buckets = `${this.meta}:`;
    // Defined before any transaction is made: a MULTI carries only the commands its connection had then.
    defineLua(redis, IDS);
  }

  /**
   * For each id of a page, in order: true the first time the run sees it. An id is held here from its page on, so
   * journeys in flight together admit it once; Redis answers for the batches written before (this attempt's or an
   * earlier one's).
   */
  async admit(ids: readonly string[]): Promise<boolean[]> {
    const first = ids.map(() => false);
    const asked: number[] = [];
    ids.forEach((id, i) => {
      if (this.held.has(id)) return;
      this.held.add(id);
      asked.push(i);
    });
    let known: number[] = [];
    try {
      for (const part of chunks(asked, IDS_PER_CALL))
        known = known.concat(await this.call<number[]>(['has', this.buckets, ...part.map((i) => ids[i] as string)]));
    } catch (err) {
      for (const i of asked) this.held.delete(ids[i] as string);
      throw err;
    }
    asked.forEach((i, k) => {
      if (known[k] === 1) this.held.delete(ids[i] as string);
      else first[i] = true;
    });
    return first;
  }

  /** The batch holding these ids is written: they go to Redis with the checkpoint that moves past it. */
  committed(ids: readonly string[]): void {
    for (const id of ids) this.unsaved.push(id);
  }

  /**
   * Queues the committed ids on the checkpoint's transaction; the answer tells whether it was applied (the ids
   * are then in Redis) or not (they go with the next save).
   */
  queue(batch: ChainableCommander): (applied: boolean) => void {
    const ids = this.unsaved;
    this.unsaved = [];
    for (const part of chunks(ids, IDS_PER_CALL))
      queueLua(batch, IDS, [this.meta], ['add', this.buckets, RUN_MATCHED_TTL_SECONDS, ...part]);
    return (applied) => {
      if (!applied) this.unsaved = ids.concat(this.unsaved);
      else for (const id of ids) this.held.delete(id);
    };
  }

  /** Writes the committed ids now (a dry run, which saves no checkpoint). */
  async save(): Promise<void> {
    if (this.unsaved.length > 0) await execAlong(this.redis, this);
  }

  /** Deletes the run's ids, in bounded steps (the run ended, or starts afresh without a checkpoint). */
  async drop(): Promise<void> {
    let next = 0;
    do next = await this.call<number>(['drop', this.buckets, next, DROP_STEP]);
    while (next !== 0);
  }

  private call<T>(args: (string | number)[]): Promise<T> {
    return runLua<T>(this.redis, IDS, [this.meta], args);
  }
}
