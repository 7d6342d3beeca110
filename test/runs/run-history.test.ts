import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { listRuns, recordRun } from '../../src/runs/run-history.js';
import { emptyCounts, exitCodeOf, type RunSummary } from '../../src/runs/run-summary.js';
import { CheckpointStore, type RunCheckpoint } from '../../src/runs/checkpoint-store.js';
import { testRedis } from '../helpers/redis.js';

let redis: Redis;
let prefix: string;
let cleanup: () => Promise<void>;

beforeEach(async () => {
  ({ redis, prefix, cleanup } = await testRedis('run-history'));
});
afterEach(async () => cleanup());

function summary(search: string, n: number): RunSummary {
  return {
    ...emptyCounts(),
    search,
    status: 'completed',
    durationMs: n,
    runId: `r${n}`,
    startedAt: '',
    finishedAt: '',
    dryRun: false,
    partitions: 1,
    fetched: n,
  };
}

describe('run history', () => {
  it('keeps the last N summaries per search, newest first', async () => {
    for (let i = 1; i <= 7; i++) await recordRun(redis, summary('a', i), { prefix, keep: 5 });
    await recordRun(redis, summary('b', 99), { prefix, keep: 5 });
    const runs = await listRuns(redis, 'a', { prefix, limit: 10 });
    expect(runs.map((r) => r.runId)).toEqual(['r7', 'r6', 'r5', 'r4', 'r3']);
    expect(await redis.llen(`${prefix}:run:a:history`)).toBe(5);
    expect((await listRuns(redis, 'b', { prefix })).map((r) => r.fetched)).toEqual([99]);
    expect((await listRuns(redis, 'a', { prefix, limit: 2 })).length).toBe(2);
  });

  it('maps statuses to the contract exit codes', () => {
    expect([
      exitCodeOf({ status: 'completed' }),
      exitCodeOf({ status: 'failed' }),
      exitCodeOf({ status: 'partial' }),
      exitCodeOf({ status: 'delayed' }),
    ]).toEqual([0, 1, 3, 3]);
  });
});

describe('checkpoint store', () => {
  const cp = (runId: string, fetched: number): RunCheckpoint<{ cursor: string; fetched: number }> => ({
    runId,
    startedAt: 'x',
    counted: 10,
    counts: { ...emptyCounts(), fetched },
    partitions: [{ filter: {}, state: { cursor: 'c', fetched }, done: false }],
  });

  it('loads only the same run, coalesces parallel saves to the latest, expires, clears', async () => {
    const store = new CheckpointStore<{ cursor: string; fetched: number }>(redis, 's', { prefix, ttlMs: 400 });
    await Promise.all([1, 2, 3, 4, 5].map((n) => store.save(cp('run-1', n))));
    expect((await store.load('run-1'))?.counts.fetched).toBe(5);
    expect(await store.load('run-2')).toBeNull();
    const ttl = await redis.pttl(`${prefix}:run:s:checkpoint`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(400);
    await new Promise((r) => setTimeout(r, 500));
    expect(await store.load('run-1')).toBeNull();
    await store.save(cp('run-1', 9));
    await store.clear('run-2');
    expect(await store.load('run-1')).not.toBeNull();
    await store.clear('run-1');
    expect(await store.load('run-1')).toBeNull();
  });
});
