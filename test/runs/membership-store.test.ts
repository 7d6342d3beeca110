/**
 * The membership settle goes in bounded steps (issue 30 item 3): a settle cut off between steps goes on where it was,
 * counting nobody twice. Real Redis.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { addRunMatched, MembershipStore } from '../../src/runs/membership-store.js';
import { testRedis } from '../helpers/redis.js';

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

const keys = (from: number, to: number): string[] => Array.from({ length: to - from }, (_, i) => `k${from + i}`);

describe('membership settle in steps', () => {
  it('a settle cut off after a few steps ends with the figures of an uninterrupted one', async () => {
    const r = await testRedis('settle-steps');
    cleanup = r.cleanup;
    const rules = { confirmRuns: 1, maxShare: 1 };
    const settleAll = async (search: string, cutAfter: number): Promise<unknown> => {
      const store = new MembershipStore(r.redis, search, 'portal', r.prefix);
      await addRunMatched(r.redis, search, 'r1', keys(0, 6000), r.prefix);
      await store.settle('r1', rules);
      // Run 2: 2,000 leave, 3,000 enter.
      await addRunMatched(r.redis, search, 'r2', keys(2000, 9000), r.prefix);
      for (let i = 0; i < cutAfter; i++) expect(await store.settleStep('r2', rules)).toBeNull();
      // The worker is gone; another settles the run.
      const settled = await new MembershipStore(r.redis, search, 'portal', r.prefix).settle('r2', rules);
      return { settled, counts: await store.counts(false) };
    };
    const expected = {
      settled: { entered: 3000, left: 2000, matched: 7000, guarded: false, pending: 2000 },
      counts: { members: 7000, pending: 2000, unlisted: 0 },
    };
    expect(await settleAll('whole', 0)).toEqual(expected);
    // Cut in the matched phase, and in the members phase.
    expect(await settleAll('cut-early', 3)).toEqual(expected);
    expect(await settleAll('cut-late', 10)).toEqual(expected);
    expect(await r.redis.keys(`${r.prefix}:mirror:*:run:*`)).toEqual([]);
  });
});
