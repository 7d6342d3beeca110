import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { listRuns, recordRun } from '../../src/runs/run-history.js';
import { OVERVIEW_RUNS, overviewOf, readOverviews, type RunOverview } from '../../src/runs/run-overview.js';
import { emptyCounts, exitCodeOf, type RunSummary } from '../../src/runs/run-summary.js';
import { CheckpointStore, type RunCheckpoint } from '../../src/runs/checkpoint-store.js';
import { Turns } from '../../src/shared/in-turns.js';
import { racingClock, turnsWhile } from '../helpers/event-loop-turns.js';
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

describe('run overview (one small value per search for /runs)', () => {
  it(
    'is written with each run: the newest run whole, the last 30 cut to their figures; an old history gets ' + 'one',
    async () => {
      for (let i = 1; i <= OVERVIEW_RUNS + 3; i++)
        await recordRun(
          redis,
          { ...summary('a', i), tokensSpent: 10 * i, warnings: { count: 1, first: ['x'] } },
          { prefix },
        );
      const stored = JSON.parse((await redis.get(`${prefix}:run:a:overview`)) ?? 'null') as RunOverview;
      expect(stored.last).toEqual((await listRuns(redis, 'a', { prefix, limit: 1 }))[0]);
      expect(stored.recent.map((r) => [r.fetched, r.tokensSpent])).toEqual(
        Array.from({ length: OVERVIEW_RUNS }, (_, k) => [OVERVIEW_RUNS + 3 - k, 10 * (OVERVIEW_RUNS + 3 - k)]),
      );
      expect(Object.keys(stored.recent[0] ?? {}).sort()).toEqual([
        'creditsSpent',
        'dryRun',
        'fetched',
        'status',
        'tokensSpent',
      ]);
      // A history recorded before overviews existed: built on first read, then kept.
      await redis.lpush(
        `${prefix}:run:old:history`,
        JSON.stringify(summary('old', 1)),
        JSON.stringify(summary('old', 2)),
      );
      const [a, old, none] = await readOverviews(redis, ['a', 'old', 'none'], prefix);
      expect(a).toEqual(stored);
      expect(old?.last?.runId).toBe('r2');
      expect(old?.recent.map((r) => r.fetched)).toEqual([2, 1]);
      expect(await redis.exists(`${prefix}:run:old:overview`)).toBe(1);
      expect(none).toEqual({ recent: [] });
    },
  );

  it('parses the overviews in turns of the event loop: a turn after each whose slice used its time', async () => {
    // Replies already there (no round trip, whose wait would turn the loop too): the turns are the parse's own.
    const searches = Array.from({ length: 20 }, (_, i) => `s${i}`);
    const replies = searches.map((s) => [null, JSON.stringify(overviewOf([summary(s, 1)]))]);
    const pipeline = { get: () => pipeline, exec: () => Promise.resolve(replies) };
    const answered = { pipeline: () => pipeline } as unknown as Redis;
    const turns = new Turns(10, racingClock(20));
    const { result, turns: seen } = await turnsWhile(() => readOverviews(answered, searches, prefix, { turns }));
    expect(seen).toBeGreaterThanOrEqual(20);
    expect(result.map((o) => o.last?.search)).toEqual(searches);
  });
});

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
