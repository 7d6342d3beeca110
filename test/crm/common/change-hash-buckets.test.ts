/**
 * Change hashes kept in small listpack buckets that split as records come (issue 30 item 2), and the flat hash of the
 * layout before read and drained into them in bounded steps. Real Redis.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  changeHashKey,
  changeHashKeys,
  createChangeDetector,
  fieldHash,
  forgetChangeHashes,
} from '../../../src/crm/change-detector.js';
import type { CrmRecord } from '../../../src/crm/crm-record.js';
import { testRedis } from '../../helpers/redis.js';

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

const FIELDS = ['domain', 'name'];
const target = { object: 'companies', matchField: 'id', fields: FIELDS };
const record = (i: number, name = `Company ${i}`): CrmRecord => ({
  key: `c-${i}`,
  properties: { domain: `c${i}.example`, name },
});
const records = (from: number, to: number, name?: (i: number) => string): CrmRecord[] =>
  Array.from({ length: to - from }, (_, i) => record(from + i, name?.(from + i)));

describe('change hashes in buckets', () => {
  it('keeps every bucket a listpack of at most 128 entries, and finds every record again', async () => {
    const r = await testRedis('hash-buckets');
    cleanup = r.cleanup;
    const detector = createChangeDetector(r.redis, r.prefix, 'hs', target, 'p');
    const all = records(0, 30_000);
    await detector.remember(all);
    const store = changeHashKeys(changeHashKey(r.prefix, 'hs', target, 'p'));
    const buckets = await r.redis.keys(`${store.buckets}*`);
    // 30,000 records at <= 48 a bucket on average: the buckets split as they filled.
    expect(buckets.length).toBeGreaterThanOrEqual(30_000 / 48);
    const sizes = await Promise.all(buckets.map((b) => r.redis.hlen(b)));
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(30_000);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(128);
    const encodings = new Set(await Promise.all(buckets.map((b) => r.redis.object('ENCODING', b))));
    expect(encodings).toEqual(new Set(['listpack']));
    expect(await r.redis.hget(store.meta, 'n')).toBe('30000');

    const fresh = createChangeDetector(r.redis, r.prefix, 'hs', target, 'p');
    expect((await fresh.unchanged(all)).size).toBe(30_000);
    const renamed = records(0, 30_000, (i) => (i % 1000 === 7 ? 'Renamed' : `Company ${i}`));
    const same = await fresh.unchanged(renamed);
    expect(same.size).toBe(30_000 - 30);
    expect(same.has('c-7')).toBe(false);
    await fresh.forget(['c-8', 'c-9', 'unknown']);
    expect(await r.redis.hget(store.meta, 'n')).toBe('29998');
    expect([...(await fresh.unchanged(records(6, 11)))].sort()).toEqual(['c-10', 'c-6', 'c-7']);
  });

  it('reads the flat hash of the layout before, drains it by bounded steps, and forgets in it too', async () => {
    const r = await testRedis('hash-migrate');
    cleanup = r.cleanup;
    // Today's layout as the release before wrote it: one hash, field = match key, value = '3', then 6 chars per
    // hash of companyKey and of each sorted field.
    const legacy = changeHashKey(r.prefix, 'hs', target, 'p');
    const stored = (x: CrmRecord): string =>
      `3${fieldHash(x.companyKey ?? null)}${FIELDS.map((f) => fieldHash(x.properties[f])).join('')}`;
    const before = records(0, 2600);
    for (let i = 0; i < before.length; i += 1000)
      await r.redis.hset(legacy, ...before.slice(i, i + 1000).flatMap((x) => [x.key, stored(x)]));
    await r.redis.expire(legacy, 3600);

    const detector = createChangeDetector(r.redis, r.prefix, 'hs', target, 'p');
    const renamed = records(0, 2600, (i) => (i === 5 ? 'Renamed' : `Company ${i}`));
    const same = await detector.unchanged(renamed, { upgrade: true });
    expect(same.size).toBe(2599);
    expect(same.has('c-5')).toBe(false);
    // Reads alone move nothing.
    expect(await r.redis.hlen(legacy)).toBe(2600);
    await detector.forget(['c-6']);
    expect(await r.redis.hexists(legacy, 'c-6')).toBe(0);

    // Each write moves its own records and a bounded slice of the rest.
    const store = changeHashKeys(legacy);
    await detector.remember([renamed[5]!]);
    const left = await r.redis.hlen(legacy);
    expect(left).toBeLessThan(2598);
    expect(left).toBeGreaterThan(2598 - 1000);
    let writes = 0;
    while ((await r.redis.exists(legacy)) === 1 && writes < 10) await detector.remember([record(10_000 + writes++)]);
    expect(await r.redis.exists(legacy)).toBe(0);
    expect(writes).toBeGreaterThanOrEqual(2);
    expect(await r.redis.hget(store.meta, 'n')).toBe(String(2599 + writes));
    const after = await createChangeDetector(r.redis, r.prefix, 'hs', target, 'p').unchanged(renamed);
    expect(after.size).toBe(2599);
    expect(after.has('c-6')).toBe(false);
  });
});

describe('erasure of change hashes', () => {
  it('forgetChangeHashes finds a record in the buckets by its match key and removes it, counts kept', async () => {
    const r = await testRedis('hash-forget');
    cleanup = r.cleanup;
    const detector = createChangeDetector(r.redis, r.prefix, 'hs', target, 'p');
    await detector.remember(records(0, 500));
    const store = changeHashKeys(changeHashKey(r.prefix, 'hs', target, 'p'));
    const dry = await forgetChangeHashes(r.redis, r.prefix, ['c-42', 'nobody'], false);
    expect(dry).toEqual([{ key: store.buckets, count: 1 }]);
    expect((await detector.unchanged([record(42)])).size).toBe(1);
    await forgetChangeHashes(r.redis, r.prefix, ['c-42'], true);
    expect((await detector.unchanged([record(42)])).size).toBe(0);
    expect(await r.redis.hget(store.meta, 'n')).toBe('499');
  });
});
