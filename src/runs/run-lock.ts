import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { AppError } from '../shared/app-error.js';
import { luaScript, runLua } from '../shared/lua-script.js';
import { RELEASE_IF_OWNER, RENEW_IF_OWNER } from '../shared/owner-lease.js';
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
  /** This attempt's token: `<run id>#<attempt>`. */
  readonly owner: string;
  /** Aborted when a renewal finds the lock gone or taken: the run must stop writing. */
  readonly lost: AbortSignal;
  release(): Promise<void>;
}

/** 1: taken; 2: held by another attempt of this run (waited for, never joined); 0: held by another run. */
const ACQUIRE = luaScript('runLockAcquire', 1, new URL('./run-lock-acquire.lua', import.meta.url));

/** The run id part of a lock value (`<run id>#<attempt>`). */
const runIdOf = (value: string | null): string | null => (value === null ? null : value.replace(/#[^#]*$/, ''));

/**
 * Takes the per-search run lock for one attempt of run `runId`, or throws RunAlreadyActiveError. Both the queue job
 * and the in-process `run` command take it, so two runs of one search never overlap whichever way they started.
 * While another attempt of the same run holds it, this waits (a live holder finishes or checkpoints; a crashed one's
 * lock expires within `ttlMs`), up to `ttlMs` plus one renewal; then RunAlreadyActiveError names this run itself.
 */
export async function acquireRunLock(
  redis: Redis,
  search: string,
  runId: string,
  options: RunLockOptions = {},
): Promise<RunLock> {
  const key = runKeys(search, options.prefix ?? DEFAULT_RUNS_PREFIX).lock;
  // As short-lived as the queue job's lock (src/queue/worker-locks.ts): a crashed holder blocks the run's next
  // attempt for at most 10 s; renewed every 2 s, it survives an event loop blocked for several seconds.
  const ttlMs = options.ttlMs ?? 10_000;
  const renewEveryMs =
    options.renewEveryMs ?? (options.ttlMs === undefined ? 2_000 : Math.max(100, Math.floor(ttlMs / 3)));
  const owner = `${runId}#${randomUUID().slice(0, 8)}`;
  const deadline = Date.now() + ttlMs + renewEveryMs;
  for (;;) {
    const taken = await runLua<number>(redis, ACQUIRE, [key], [owner, String(ttlMs), `${runId}#`]);
    if (taken === 1) break;
    if (taken === 0 || Date.now() >= deadline) throw new RunAlreadyActiveError(search, runIdOf(await redis.get(key)));
    await sleep(Math.min(250, Math.max(20, Math.floor(ttlMs / 10))));
  }

  const lost = new AbortController();
  const timer = setInterval(() => {
    runLua(redis, RENEW_IF_OWNER, [key], [owner, String(ttlMs)]).then(
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
      await runLua(redis, RELEASE_IF_OWNER, [key], [owner]);
    },
  };
}
