/**
 * Issue 23's mirror benchmark (bench/mirror-lists.ts) at a small size: the same scenario, 2,000 companies with 1%
 * leaving and 1% entering, the worker as its own process from the source. Asserts the scenario's counted figures
 * only: the unchanged run makes 0 list writes, and no run makes more list calls than 2 per 100 changed members plus
 * the name lookups. Timings are the benchmark's, never asserted here.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { listCallBound, runMirrorScenario } from '../../bench/lib/mirror-scenario.js';
import { testRedis } from '../helpers/redis.js';

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

describe('mirror benchmark, small', () => {
  it(
    '2,000 companies: run 4 unchanged writes nothing to the list; list calls stay within the bound per changed ' +
      'member',
    async () => {
      const r = await testRedis('mirror-bench');
      cleanup = r.cleanup;
      const { runs, checks, memory } = await runMirrorScenario({
        companies: 2_000,
        rate: { limit: 500, windowSeconds: 10 },
        hubspotPer10s: 190,
        latency: { fixedMs: 5, jitterMs: 5 },
        align: false,
        plainRun: false,
        runtime: 'tsx',
        redisUrl: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
        prefix: r.prefix,
      });
      expect(checks).toEqual(Object.fromEntries(Object.keys(checks).map((k) => [k, true])));
      const [r1, r2, r3, r4] = runs;
      expect([r1, r2, r3, r4].map((x) => [x!.listAdded, x!.listRemoved])).toEqual([
        [2_000, 0],
        [20, 0],
        [0, 20],
        [0, 0],
      ]);
      expect(r4!.listWrites).toBe(0);
      expect(r4!.listCalls).toEqual({ 'lists.byName': 1 });
      for (const run of [r1!, r2!, r3!])
        expect(run.listCallsTotal).toBeLessThanOrEqual(listCallBound(run.changedMembers));
      expect(memory.members).toBe(2_000);
    },
    120_000,
  );
});
