/**
 * The refresh registry of a search per CRM instance (docs/runs.md, Refresh on change): the partitions of its last
 * complete walk in refresh mode `changed` (filter, free count when walked, when each was last walked), the
 * fingerprint of what they partition, and per partition the match keys its last walk found, so a run that skips a
 * partition still counts its members as matching (in a generation of listpack buckets that each commit replaces:
 * refresh-registry-commit-step.lua). Written only when a run ends complete; a TTL renewed by each. Keys share the
 * search's hash tag with its mirror keys (one script on a Redis Cluster).
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { luaScript, runLua } from '../shared/lua-script.js';
import { eraseMembers, type KeyHit } from '../shared/key-erase.js';
import { chunks } from '../crm/chunks.js';
import { KEYS_PER_COMMAND, runMatchedKey, RUN_MATCHED_TTL_SECONDS } from './membership-store.js';
import { DEFAULT_RUNS_PREFIX } from './run-keys.js';

/** A registry outlives its interval: a search paused for weeks walks in full when it comes back. */
export const REFRESH_REGISTRY_TTL_SECONDS = 35 * 24 * 3600;

/** One partition as the registry keeps it. */
export interface KeptPartition {
  /** Stable id: a hash of its filter (the registry's keys name it). */
  id: string;
  filter: Record<string, unknown>;
  /** Its free count when last walked (or re-counted unchanged). */
  count: number;
  /** When it was last walked (ms since the epoch). */
  walkedAt: number;
  /**
   * A new split's pieces, counted beside a walk of larger partitions: the id its members were found under (the
   * whole search's). While any piece of it is skipped, those members stay matched; a walk of the piece finds its own.
   */
  group?: string;
}

export interface RefreshRegistry {
  /** What the partitions split: the search's entity, filter, view and mapping (another => a new registry). */
  fingerprint: string;
  savedAt: number;
  partitions: KeptPartition[];
}

/** Entries a commit step visits (SCAN COUNT). */
const COMMIT_STEP = 200;
const COMMIT = luaScript(
  'refreshRegistryCommitStep',
  11,
  new URL('./step-progress.lua', import.meta.url),
  new URL('../shared/linear-buckets.lua', import.meta.url),
  new URL('./refresh-registry-commit-step.lua', import.meta.url),
);

/**
 * Keys of a registry's keys by partition (refresh-registry-commit-step.lua): `generation` points at the generation
 * of listpack buckets in use (names under `generations`); `legacy` is the one hash of the layout before.
 */
function keysOf(
  search: string,
  instance: string,
  prefix: string,
): {
  generation: string;
  generations: string;
  legacy: string;
} {
  const b = `${base(search, prefix)}:${instance}`;
  return { generation: `${b}:g`, generations: `${b}:g:`, legacy: `${b}:keys` };
}

/** Drops an instance's registry keys by partition: the generation in use, bucket by bucket, and the layout before. */
async function dropKeys(redis: Redis, search: string, instance: string, prefix: string): Promise<void> {
  const { generation, generations, legacy } = keysOf(search, instance, prefix);
  const gen = await redis.hget(generation, 'gen');
  if (gen !== null) {
    const at = `${generations}${gen}`;
    const [l, s] = await redis.hmget(`${at}:m`, 'L', 's');
    const count = 2 ** Number(l ?? 0) + Number(s ?? 0);
    for (let from = 0; from < count; from += KEYS_PER_COMMAND) {
      const names = Array.from({ length: Math.min(KEYS_PER_COMMAND, count - from) }, (_, i) => `${at}:b${from + i}`);
      await redis.unlink(...names);
    }
    await redis.unlink(`${at}:m`, `${at}:p`, `${at}:i`);
  }
  await redis.unlink(generation, legacy);
}

export function partitionId(filter: Record<string, unknown>): string {
  return createHash('sha256').update(JSON.stringify(filter)).digest('base64url').slice(0, 16);
}

function base(search: string, prefix: string): string {
  return `${prefix}:refresh:{${search}}`;
}

/** Adds one committed batch's match keys, found in the partition of `filter`, to the run's keys by partition. */
export async function addRunKeys(
  redis: Redis,
  search: string,
  runId: string,
  filter: Record<string, unknown>,
  keys: readonly string[],
  prefix: string = DEFAULT_RUNS_PREFIX,
): Promise<void> {
  if (keys.length === 0) return;
  const key = `${base(search, prefix)}:run:${runId}`;
  const id = partitionId(filter);
  const multi = redis.multi();
  for (const part of chunks(keys, KEYS_PER_COMMAND)) multi.hset(key, ...part.flatMap((k) => [k, id]));
  await multi.expire(key, RUN_MATCHED_TTL_SECONDS).exec();
}

/** Drops a run's keys by partition: the run ended without a complete walk and nothing will resume it. */
export async function dropRunKeys(
  redis: Redis,
  search: string,
  runId: string,
  prefix: string = DEFAULT_RUNS_PREFIX,
): Promise<void> {
  await redis.unlink(`${base(search, prefix)}:run:${runId}`);
}

/** A complete run in refresh mode `full`: every instance's registry goes (a later `changed` run starts afresh). */
export async function dropRegistries(
  redis: Redis,
  search: string,
  prefix: string = DEFAULT_RUNS_PREFIX,
): Promise<void> {
  const instances = `${base(search, prefix)}:instances`;
  const names = await redis.smembers(instances);
  if (names.length === 0) return;
  for (const n of names) await dropKeys(redis, search, n, prefix);
  await redis.unlink(
    instances,
    ...names.flatMap((n) => [`${base(search, prefix)}:${n}`, `${base(search, prefix)}:${n}:held`]),
  );
}

/** The CRM instance whose registry of `search` was saved last (what `plan` previews), or null when none is kept. */
export async function lastRegistryInstance(
  redis: Redis,
  search: string,
  prefix: string = DEFAULT_RUNS_PREFIX,
): Promise<string | null> {
  let last: { instance: string; savedAt: number } | null = null;
  for (const instance of await redis.smembers(`${base(search, prefix)}:instances`)) {
    const registry = await new RefreshRegistryStore(redis, search, instance, prefix).load();
    if (registry && (last === null || registry.savedAt > last.savedAt)) last = { instance, savedAt: registry.savedAt };
  }
  return last?.instance ?? null;
}

export class RefreshRegistryStore {
  private readonly keys: { registry: string; instances: string; held: string };

  constructor(
    private readonly redis: Redis,
    private readonly search: string,
    private readonly instance: string,
    private readonly prefix: string = DEFAULT_RUNS_PREFIX,
  ) {
    const b = base(search, prefix);
    this.keys = {
      registry: `${b}:${instance}`,
      instances: `${b}:instances`,
      held: `${b}:${instance}:held`,
    };
  }

  /** The registry, or null (none yet, expired, or unreadable). */
  async load(): Promise<RefreshRegistry | null> {
    const raw = await this.redis.get(this.keys.registry);
    if (!raw) return null;
    try {
      return JSON.parse(raw) as RefreshRegistry;
    } catch {
      return null;
    }
  }

  /**
   * The run (at `at`) ended complete: the members of its `skipped` partitions join its matched set, and so do the
   * members held (gone from a walked partition, found in none, until every partition holding records was walked
   * after they went: `covered`, the oldest last walk after this run); unless `registry` is null (a dry run) its keys
   * and `registry` replace the registry. Returns the members kept of skipped partitions, and those held.
   */
  async commit(
    runId: string,
    at: number,
    covered: number,
    skipped: readonly string[],
    registry: RefreshRegistry | null,
  ): Promise<{ kept: number; held: number }> {
    return (await this.commitSteps(runId, at, covered, skipped, registry, Number.POSITIVE_INFINITY))!;
  }

  /**
   * `commit` cut off after `maxSteps` bounded steps (null then, else its figures): a commit cut off (the worker gone)
   * goes on where it was when `commit` is called again for the run.
   */
  async commitSteps(
    runId: string,
    at: number,
    covered: number,
    skipped: readonly string[],
    registry: RefreshRegistry | null,
    maxSteps: number,
  ): Promise<{ kept: number; held: number } | null> {
    const runKeys = `${base(this.search, this.prefix)}:run:${runId}`;
    // The commit goes in steps (bounded calls); its progress and staging keys sit beside the run's keys.
    const skippedKey = `${runKeys}:skipped`;
    const multi = this.redis.multi();
    for (const part of chunks(skipped, KEYS_PER_COMMAND)) multi.sadd(skippedKey, ...part);
    await multi.expire(skippedKey, RUN_MATCHED_TTL_SECONDS).exec();
    const { generation, generations, legacy } = keysOf(this.search, this.instance, this.prefix);
    const keys = [
      generation,
      legacy,
      runKeys,
      runMatchedKey(this.search, runId, this.prefix),
      this.keys.registry,
      this.keys.instances,
      this.keys.held,
      `${runKeys}:commit`,
      skippedKey,
      `${runKeys}:gone`,
      `${runKeys}:counted`,
    ];
    const args = [
      registry ? '1' : '0',
      registry ? JSON.stringify(registry) : '',
      REFRESH_REGISTRY_TTL_SECONDS,
      this.instance,
      at,
      covered,
      COMMIT_STEP,
      RUN_MATCHED_TTL_SECONDS,
      generations,
    ];
    for (let step = 0; step < maxSteps; step++) {
      const [done, kept, held] = (await runLua<number[]>(this.redis, COMMIT, keys, args)).map(Number) as [
        number,
        number,
        number,
      ];
      if (done === 1) return { kept, held };
    }
    return null;
  }

  /** The registry no longer describes a complete walk (a partition was split mid-walk): the next run starts afresh. */
  async drop(): Promise<void> {
    await dropKeys(this.redis, this.search, this.instance, this.prefix);
    await this.redis.unlink(this.keys.registry, this.keys.held);
  }
}

/**
 * A run's refresh plan as its checkpoint keeps it, so a resumed attempt walks what the first attempt chose (no
 * re-count, no new selection), and what the run reports (the summary's `refresh` block).
 */
export interface RefreshState {
  instance: string;
  fingerprint: string;
  /** When the run chose (ms since the epoch): the walked partitions' `walkedAt`. */
  at: number;
  /** Partitions the registry held; walked by reason; ids of those skipped (their last members stay matched). */
  kept: number;
  walked: { changed: number; new: number; stale: number };
  skipped: string[];
  /** Records the walked partitions held when counted (the run's target). */
  walkRecords?: number;
  /**
   * The run walks every partition of a new split: no registry yet, the search changed, or the counts did not tile it.
   */
  rebuilt?: 'first' | 'search_changed' | 'untiled' | 'too_many' | 'full_resync';
  /** Each piece's size and the count requests of a new split (the resumed attempt splits alike). */
  split?: { pieceRecords: number; maxCounts: number };
}

/** Erasure (`forget`): the match keys `keys` leave the search's refresh registry (every instance, partition, run). */
export function forgetRefreshKeys(
  redis: Redis,
  search: string,
  keys: readonly string[],
  apply: boolean,
  prefix: string = DEFAULT_RUNS_PREFIX,
): Promise<KeyHit[]> {
  return eraseMembers(redis, `${base(search, prefix)}:*`, keys, apply);
}
