/**
 * A search's members and list marks as record flags in listpack buckets (issue 30 item 2): the two sets of the
 * layout before are moved into them on first use, in bounded steps, and every decision is the one a membership kept
 * as flags from the start makes. Real Redis.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { addRunMatched, forgetMember, MembershipStore } from '../../src/runs/membership-store.js';
import { testRedis } from '../helpers/redis.js';

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

const keys = (from: number, to: number): string[] => Array.from({ length: to - from }, (_, i) => `k${from + i}`);
const rules = { confirmRuns: 1, maxShare: 0.5 };

describe('membership layout', () => {
  it('moves the sets of the layout before into record flags and decides as flags kept from the start', async () => {
    const r = await testRedis('membership-layout');
    cleanup = r.cleanup;
    // Search `before`: run 1 settled and listed as the release before kept it, in its documented key shapes.
    const b = `${r.prefix}:mirror:{before}:portal`;
    for (let i = 0; i < 6000; i += 1000) await r.redis.sadd(`${b}:members`, ...keys(i, i + 1000));
    for (let i = 0; i < 5000; i += 1000) await r.redis.sadd(`${b}:listed`, ...keys(i, i + 1000));
    await r.redis.hset(`${b}:meta`, 'baseline', 6000, 'lastMatched', 6000, 'listId', 'L1');
    // Search `after`: the same run 1 through this code.
    const after = new MembershipStore(r.redis, 'after', 'portal', r.prefix);
    await addRunMatched(r.redis, 'after', 'r1', keys(0, 6000), r.prefix);
    await after.settle('r1', rules);
    await after.keepListId('L1');
    await after.markListed(keys(0, 5000), true);

    const decide = async (search: string) => {
      const store = new MembershipStore(r.redis, search, 'portal', r.prefix);
      const unlisted = async () => {
        const all: string[] = [];
        for await (const page of store.unlistedPages()) all.push(...page);
        return all.sort();
      };
      const out: unknown[] = [await store.counts(true)];
      // Run 2: 1,000 leave, 1,000 enter; first as a dry run, then for real.
      await addRunMatched(r.redis, search, 'dry', keys(1000, 7000), r.prefix);
      out.push(await store.forecast('dry', rules, 'removeFromList'));
      await addRunMatched(r.redis, search, 'r2', keys(1000, 7000), r.prefix);
      out.push(await store.settle('r2', rules), await store.counts(true), await unlisted(), await store.pending());
      await store.markListed(keys(0, 1000), false);
      await store.done(keys(0, 1000));
      await store.keepListId('L2');
      out.push(await store.counts(true), (await unlisted()).length);
      return out;
    };
    const old = await decide('before');
    expect(old).toEqual(await decide('after'));
    expect(old.slice(0, 3)).toEqual([
      { members: 6000, pending: 0, unlisted: 1000 },
      { entered: 1000, left: 1000, pending: 0, listAdds: 2000, listRemoves: 1000, matched: 6000, guarded: false },
      { entered: 1000, left: 1000, matched: 6000, guarded: false, pending: 1000 },
    ]);
    expect(old[6]).toEqual({ members: 6000, pending: 0, unlisted: 6000 });

    // The sets are gone; the flags sit in listpack buckets of at most 128 fields.
    expect(await r.redis.exists(`${b}:members`, `${b}:listed`)).toBe(0);
    const buckets = await r.redis.keys(`${b}:records:*`);
    const sizes = await Promise.all(buckets.map((k) => r.redis.hlen(k)));
    expect(sizes.reduce((x, y) => x + y, 0)).toBe(6000);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(128);
    expect(new Set(await Promise.all(buckets.map((k) => r.redis.object('ENCODING', k))))).toEqual(
      new Set(['listpack']),
    );
  });
});

describe('erasure in the record flags', () => {
  it('forgetMember removes the person from the flags and keeps the member count true', async () => {
    const r = await testRedis('membership-forget');
    cleanup = r.cleanup;
    const store = new MembershipStore(r.redis, 's', 'portal', r.prefix);
    await addRunMatched(r.redis, 's', 'r1', keys(0, 3000), r.prefix);
    await store.settle('r1', rules);
    await store.markListed(keys(0, 3000), true);
    const listed = await forgetMember(r.redis, 's', ['k7', 'nobody'], false, r.prefix);
    expect(listed.reduce((n, h) => n + h.count, 0)).toBe(1);
    expect(await store.counts(true)).toMatchObject({ members: 3000 });
    await forgetMember(r.redis, 's', ['k7'], true, r.prefix);
    expect(await store.counts(true)).toMatchObject({ members: 2999, unlisted: 0 });
    expect(await forgetMember(r.redis, 's', ['k7'], false, r.prefix)).toEqual([]);
  });
});
