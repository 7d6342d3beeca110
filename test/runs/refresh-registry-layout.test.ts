/**
 * The refresh registry's keys by partition in generations of listpack buckets (issue 30 item 2): a registry of the
 * layout before (one hash, match key -> partition id) is converted by the next commit, with the same decisions as a
 * registry kept in buckets from the start. Real Redis.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { addRunMatched, runMatchedKey } from '../../src/runs/membership-store.js';
import { addRunKeys, partitionId, RefreshRegistryStore } from '../../src/runs/refresh-registry.js';
import { testRedis } from '../helpers/redis.js';

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

const PARTS = 6;
const PER = 2000;
const key = (i: number): string => `k${i}`;
const registry = (at: number) => ({
  fingerprint: 'f',
  savedAt: at,
  partitions: Array.from({ length: PARTS }, (_, p) => ({
    id: partitionId({ p }),
    filter: { p },
    count: PER,
    walkedAt: at,
  })),
});

describe('refresh registry layout', () => {
  it('converts the layout before on the next commit, deciding as a registry kept in buckets', async () => {
    const r = await testRedis('registry-layout');
    cleanup = r.cleanup;
    const walk = async (search: string, runId: string, parts: number[], skip: (i: number) => boolean) => {
      for (const p of parts) {
        const keys = Array.from({ length: PER }, (_, i) => p * PER + i)
          .filter((i) => !skip(i))
          .map(key);
        await addRunMatched(r.redis, search, runId, keys, r.prefix);
        await addRunKeys(r.redis, search, runId, { p }, keys, r.prefix);
      }
    };
    const all = Array.from({ length: PARTS }, (_, p) => p);
    // Search `before`: run 1's registry as the release before kept it, written in its documented key shapes.
    const b = `${r.prefix}:refresh:{before}:portal`;
    for (const p of all)
      await r.redis.hset(
        `${b}:keys`,
        ...Array.from({ length: PER }, (_, i) => [key(p * PER + i), partitionId({ p })]).flat(),
      );
    await r.redis.set(b, JSON.stringify(registry(1)));
    await r.redis.sadd(`${r.prefix}:refresh:{before}:instances`, 'portal');
    // Search `after`: run 1 committed by this code.
    await walk('after', 'r1', all, () => false);
    await new RefreshRegistryStore(r.redis, 'after', 'portal', r.prefix).commit('r1', 1, 1, [], registry(1));

    const decide = async (search: string, cutAfter = 0) => {
      const store = new RefreshRegistryStore(r.redis, search, 'portal', r.prefix);
      const skipped = all.filter((p) => p % 2 === 1).map((p) => partitionId({ p }));
      const out: unknown[] = [];
      // Run 2 walks partitions 0, 2, 4: every tenth record of them is gone; run 3 walks them all again.
      await walk(search, 'r2', [0, 2, 4], (i) => i % 10 === 0);
      // Cut off after `cutAfter` steps (the worker gone), the commit is taken up by another.
      if (cutAfter > 0) expect(await store.commitSteps('r2', 2, 1, skipped, registry(2), cutAfter)).toBeNull();
      out.push(await store.commit('r2', 2, 1, skipped, registry(2)));
      out.push((await r.redis.smembers(runMatchedKey(search, 'r2', r.prefix))).sort());
      await walk(search, 'r3', all, (i) => i % 10 === 0);
      out.push(await store.commit('r3', 3, 3, [], registry(3)));
      out.push((await r.redis.smembers(runMatchedKey(search, 'r3', r.prefix))).sort());
      return out;
    };
    const before = await decide('before');
    const after = await decide('after');
    expect(before).toEqual(after);
    // The same from either layout when the commit is cut off in its registry, copy or drop phases.
    for (const [search, cut] of [
      ['cut-early', 5],
      ['cut-copy', 65],
      ['cut-drop', 72],
    ] as const) {
      await walk(search, 'r1', all, () => false);
      await new RefreshRegistryStore(r.redis, search, 'portal', r.prefix).commit('r1', 1, 1, [], registry(1));
      expect(await decide(search, cut)).toEqual(after);
    }
    // Run 2 kept the 3 skipped partitions' members and held the 600 gone; run 3 released them.
    expect(before[0]).toEqual({ kept: 3 * PER, held: 600 });
    expect(before[1]).toHaveLength(PARTS * PER);
    expect(before[2]).toEqual({ kept: 0, held: 0 });
    expect(before[3]).toHaveLength(PARTS * PER - 1200);

    // The layout before is gone; one generation of listpack buckets is left, the old ones dropped.
    expect(await r.redis.exists(`${b}:keys`)).toBe(0);
    const gen = await r.redis.hget(`${b}:g`, 'gen');
    const keys = await r.redis.keys(`${b}:g:*`);
    expect(keys.length).toBeGreaterThan((PARTS * PER) / 128);
    expect(keys.every((k) => k.startsWith(`${b}:g:${gen}:`))).toBe(true);
    const buckets = keys.filter((k) => /:b\d+$/.test(k));
    const sizes = await Promise.all(buckets.map((k) => r.redis.hlen(k)));
    expect(sizes.reduce((x, y) => x + y, 0)).toBe(PARTS * PER - 1200);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(128);
    expect(new Set(await Promise.all(buckets.map((k) => r.redis.object('ENCODING', k))))).toEqual(
      new Set(['listpack']),
    );
    await new RefreshRegistryStore(r.redis, 'before', 'portal', r.prefix).drop();
    expect(await r.redis.keys(`${b}*`)).toEqual([]);
  });
});
