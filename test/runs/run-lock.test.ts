import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { acquireRunLock, RunAlreadyActiveError } from '../../src/runs/run-lock.js';
import { testRedis } from '../helpers/redis.js';

let redis: Redis;
let prefix: string;
let cleanup: () => Promise<void>;

beforeEach(async () => {
  ({ redis, prefix, cleanup } = await testRedis('run-lock'));
});
afterEach(async () => cleanup());

/** Who holds the search's lock, seen the way another run sees it: its acquire is refused naming the holder. */
async function holderOf(search: string): Promise<string | null> {
  try {
    const probe = await acquireRunLock(redis, search, 'probe', { prefix });
    await probe.release();
    return null;
  } catch (err) {
    if (err instanceof RunAlreadyActiveError) return err.details?.holder as string | null;
    throw err;
  }
}

describe('run lock', () => {
  it('refuses a second run of the same search and names the holder', async () => {
    const lock = await acquireRunLock(redis, 's1', 'run-a', { prefix });
    const err = await acquireRunLock(redis, 's1', 'run-b', { prefix }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RunAlreadyActiveError);
    expect((err as RunAlreadyActiveError).code).toBe('run_already_active');
    expect((err as RunAlreadyActiveError).details).toEqual({ search: 's1', holder: 'run-a' });
    // other searches are independent
    const other = await acquireRunLock(redis, 's2', 'run-b', { prefix });
    await other.release();
    await lock.release();
    expect(await holderOf('s1')).toBeNull();
    const again = await acquireRunLock(redis, 's1', 'run-b', { prefix });
    await again.release();
  });

  it('per attempt: another attempt of the same run waits for the holder, never joins it', async () => {
    const a = await acquireRunLock(redis, 's', 'run-a', { prefix, ttlMs: 400, renewEveryMs: 50 });
    let bTaken = false;
    const b = acquireRunLock(redis, 's', 'run-a', { prefix, ttlMs: 400, renewEveryMs: 50 }).then((lock) => {
      bTaken = true;
      return lock;
    });
    await new Promise((r) => setTimeout(r, 150));
    expect(bTaken).toBe(false); // a lives (renews): b waits
    await a.release();
    const lockB = await b;
    expect(lockB.owner).not.toBe(a.owner);
    expect(await holderOf('s')).toBe('run-a');
    // a holder that keeps its lock past the wait: refused, naming this run itself
    const err = await acquireRunLock(redis, 's', 'run-a', { prefix, ttlMs: 200, renewEveryMs: 50 }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(RunAlreadyActiveError);
    expect((err as RunAlreadyActiveError).details).toEqual({ search: 's', holder: 'run-a' });
    await lockB.release();
  });

  it('renews while held and expires after a crash (no renewal)', async () => {
    const lock = await acquireRunLock(redis, 's', 'run-a', { prefix, ttlMs: 300, renewEveryMs: 50 });
    await new Promise((r) => setTimeout(r, 700));
    expect(await holderOf('s')).toBe('run-a');
    await lock.release();
    // a holder that died: its key simply expires
    await redis.set(`${prefix}:run:s:lock`, 'dead', 'PX', 200);
    await expect(acquireRunLock(redis, 's', 'run-b', { prefix })).rejects.toThrow(RunAlreadyActiveError);
    await new Promise((r) => setTimeout(r, 300));
    const b = await acquireRunLock(redis, 's', 'run-b', { prefix });
    await b.release();
  });

  it('signals a lost lock and never releases a lock it no longer owns', async () => {
    const lock = await acquireRunLock(redis, 's', 'run-a', { prefix, ttlMs: 300, renewEveryMs: 50 });
    await redis.set(`${prefix}:run:s:lock`, 'run-z');
    await new Promise((r) => setTimeout(r, 200));
    expect(lock.lost.aborted).toBe(true);
    await lock.release();
    expect(await holderOf('s')).toBe('run-z');
  });
});
