/** The revealed-at store (real Redis) and the pure reveal planning. */
import { afterAll, describe, expect, it } from 'vitest';
import { DIRECT_SHARE, expectedExtraTokens, forecastReveal, revealRuns } from '../../src/source/reveal-planner.js';
import { DAY_MS, RevealStore } from '../../src/source/reveal-store.js';
import { testRedis } from '../helpers/redis.js';

const env = await testRedis('reveal-store');
afterAll(() => env.cleanup());

describe('RevealStore', () => {
  it('remembers the reveal day per person; fresh until refreshAfterDays', async () => {
    const store = new RevealStore(env.redis, env.prefix, 180);
    const now = Date.now();
    await store.mark(['p_1', 'p_2'], now);
    await store.mark(['p_3'], now - 180 * DAY_MS);
    const days = await store.lookup(['p_1', 'p_2', 'p_3', 'p_4']);
    expect(days[0]).toBe(Math.floor(now / DAY_MS));
    expect(days[3]).toBeNull();
    expect(days.map((d) => store.isFresh(d))).toEqual([true, true, false, false]);
  });

  it('keeps only hashes: no person id appears in any key or value', async () => {
    const store = new RevealStore(env.redis, `${env.prefix}:ids`, 180);
    await store.mark(['person-secret-id']);
    const keys = await env.redis.keys(`${env.prefix}:ids:*`);
    expect(keys.length).toBe(1);
    expect(keys[0]).not.toContain('person-secret-id');
    const fields = await env.redis.hgetallBuffer(keys[0]!);
    expect(JSON.stringify(Object.keys(fields))).not.toContain('person-secret-id');
  });

  it('tallies a run by reveal day and reads back the latest run of a search', async () => {
    const store = new RevealStore(env.redis, `${env.prefix}:tally`, 180);
    expect(await store.lastTally('s')).toBeNull();
    await store.tally('s', 'r1', new Map([[100, 5]]));
    await store.tally(
      's',
      'r1',
      new Map([
        [100, 2],
        [101, 1],
      ]),
    );
    expect(await store.lastTally('s')).toEqual({
      runId: 'r1',
      byDay: new Map([
        [100, 7],
        [101, 1],
      ]),
    });
    await store.tally('s', 'r2', new Map([[102, 3]]));
    expect((await store.lastTally('s'))?.runId).toBe('r2');
  });

  it(
    "keeps one tally per search, not one per run: a run's tally goes when the next run tallies; every key " + 'expires',
    async () => {
      const store = new RevealStore(env.redis, `${env.prefix}:one`, 180);
      for (let run = 1; run <= 24; run++) await store.tally('hourly', `r${run}`, new Map([[100, run]]));
      const keys = (await env.redis.keys(`${env.prefix}:one:reveal-tally:*`)).sort();
      expect(keys).toEqual([`${env.prefix}:one:reveal-tally:hourly:last`, `${env.prefix}:one:reveal-tally:hourly:r24`]);
      for (const key of keys) expect(await env.redis.ttl(key)).toBeGreaterThan(0);
      expect(await store.lastTally('hourly')).toEqual({ runId: 'r24', byDay: new Map([[100, 24]]) });
    },
  );
});

describe('reveal planning', () => {
  it('finds runs of persons to reveal', () => {
    expect(revealRuns([false, true, true, false, true])).toEqual([
      { start: 1, end: 2 },
      { start: 4, end: 4 },
    ]);
    expect(revealRuns([false, false])).toEqual([]);
  });

  it(
    'forecasts: a first run pays every person once; a re-run pays the new ones, tokens with the expected ' + 'extra',
    () => {
      expect(forecastReveal({ counted: 1000, target: 1000, pageSize: 100, journeys: 1, fresh: null })).toMatchObject({
        credits: 1000,
        tokens: 1000,
        method: 'first-run',
      });
      const rerun = forecastReveal({ counted: 1020, target: 1020, pageSize: 100, journeys: 1, fresh: 1000 });
      expect(rerun).toMatchObject({ credits: 20, revealSkipped: 1000, method: 'last-run-tally' });
      expect(rerun.newShare).toBeLessThan(DIRECT_SHARE);
      expect(rerun.tokens).toBeGreaterThan(1020);
      expect(rerun.tokens).toBeLessThan(2040);
      // E[last unrevealed index + 1] of a page: 0 without new persons, ~size when all are new
      expect(expectedExtraTokens(0, 100)).toBe(0);
      expect(expectedExtraTokens(1, 100)).toBe(100);
    },
  );
});
