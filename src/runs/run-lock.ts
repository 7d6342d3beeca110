import type { Redis } from 'ioredis';
import { AppError } from '../shared/app-error.js';
import { RELEASE_IF_OWNER, RENEW_IF_OWNER } from '../shared/redis.js';
import { runKeys, DEFAULT_RUNS_PREFIX } from './run-keys.js';

/** A second run of a search was attempted while one holds the lock. `details.holder` is the active run id. */
export class RunAlreadyActiveError extends AppError {
  constructor(search: string, holder: string | null) {
    super('run_already_active', `a run of '${search}' is already active${holder ? ` (run ${holder})` : ''}`, {
      details: { search, holder },
    });
  }
}

export interface RunLockOptions {
  prefix?: string;
  /** Lock lifetime without renewal: how long a crashed holder blocks others. */
  ttlMs?: number;
  renewEveryMs?: number;
}

export interface RunLock {
  readonly search: string;
  readonly owner: string;
  /** Aborted when a renewal finds the lock gone or taken: the run must stop writing. */
  readonly lost: AbortSignal;
  release(): Promise<void>;
}

// Re-entrant for the same owner: a resumed job (stalled, delayed) carries its run id and takes its own lock back.
const ACQUIRE = `
local cur = redis.call('GET', KEYS[1])
if cur == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end
if cur then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1`;

/**
 * Takes the per-search run lock (owner = run id) or throws RunAlreadyActiveError. Both the queue job and the
 * in-process `run` command take it, so two runs of one search never overlap whichever way they started.
 */
export async function acquireRunLock(redis: Redis, search: string, owner: string, options: RunLockOptions = {}): Promise<RunLock> {
  const key = runKeys(search, options.prefix ?? DEFAULT_RUNS_PREFIX).lock;
  const ttlMs = options.ttlMs ?? 30_000;
  const renewEveryMs = options.renewEveryMs ?? Math.max(100, Math.floor(ttlMs / 3));
  const taken = (await redis.eval(ACQUIRE, 1, key, owner, String(ttlMs))) as number;
  if (taken !== 1) throw new RunAlreadyActiveError(search, await redis.get(key));

  const lost = new AbortController();
  const timer = setInterval(() => {
    redis.eval(RENEW_IF_OWNER, 1, key, owner, String(ttlMs)).then(
      (ok) => {
        if (ok !== 1) lost.abort(new RunAlreadyActiveError(search, null));
      },
      // A Redis blip is not a lost lock yet: the TTL covers a few missed renewals.
      () => undefined,
    );
  }, renewEveryMs);
  timer.unref();

  let released = false;
  return {
    search,
    owner,
    lost: lost.signal,
    async release() {
      if (released) return;
      released = true;
      clearInterval(timer);
      await redis.eval(RELEASE_IF_OWNER, 1, key, owner);
    },
  };
}
