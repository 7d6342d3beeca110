/**
 * Change detection for a search's own records (issue 30 item 2): a fingerprint in the search's record state, beside
 * its membership flags, read from today's change-hash store on first use. Real Redis.
 */
import type { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import {
  changeHashKey,
  changeHashKeys,
  createChangeDetector,
  fieldHash,
  forgetOwnChanges,
} from '../../../src/crm/change-detector.js';
import type { CrmRecord, ObjectTarget } from '../../../src/crm/crm-record.js';
import { addRunMatched, forgetMember, MembershipStore } from '../../../src/runs/membership-store.js';
import { recordStateKeys } from '../../../src/shared/record-state.js';
import { testRedis } from '../../helpers/redis.js';

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

const companies: ObjectTarget = { object: 'companies', matchField: 'id', fields: ['domain', 'name'] };
const company = (i: number, name = `Company ${i}`): CrmRecord => ({
  key: `c-${i}`,
  properties: { domain: `c${i}.example`, name },
});
const range = (from: number, to: number, name?: (i: number) => string): CrmRecord[] =>
  Array.from({ length: to - from }, (_, i) => company(from + i, name?.(from + i)));
const rules = { confirmRuns: 1, maxShare: 0.9 };

/** Every field of the search's record state in instance `p`: match key -> value. */
async function fields(redis: Redis, prefix: string, search: string): Promise<Map<string, string>> {
  const { buckets } = recordStateKeys(prefix, search, 'p');
  const out = new Map<string, string>();
  for (const bucket of await redis.keys(`${buckets}*`))
    for (const [k, v] of Object.entries(await redis.hgetall(bucket))) out.set(k, v);
  return out;
}

/** Search `icp` in instance `p`, settled by a first run: `n` members, the first `listed` of them in its list. */
async function membersOf(r: { redis: Redis; prefix: string }, n: number, listed: number): Promise<MembershipStore> {
  const members = new MembershipStore(r.redis, 'icp', 'p', r.prefix);
  await addRunMatched(
    r.redis,
    'icp',
    'r1',
    range(0, n).map((c) => c.key),
    r.prefix,
  );
  await members.settle('r1', rules);
  await members.markListed(
    range(0, listed).map((c) => c.key),
    true,
  );
  return members;
}

describe("a search's own records", () => {
  it('migrate from the change hashes of the release before without a resend, into the flags field', async () => {
    const r = await testRedis('fp-migrate');
    cleanup = r.cleanup;
    // Today's layout, written by today's code: the membership (members, 1,000 listed) and the per-mapping store,
    // 2,500 records in its buckets and 500 in the flat hash of the layout before.
    const members = await membersOf(r, 3000, 1000);
    await createChangeDetector(r.redis, r.prefix, 'hs', companies, 'p').remember(range(0, 2500));
    const legacy = changeHashKey(r.prefix, 'hs', companies, 'p');
    const form3 = (x: CrmRecord): string =>
      `3${fieldHash(null)}${fieldHash(x.properties.domain)}${fieldHash(x.properties.name)}`;
    await r.redis.hset(legacy, ...range(2500, 3000).flatMap((x) => [x.key, form3(x)]));
    const store = changeHashKeys(legacy);
    const stored = await r.redis.hget(store.meta, 'n');

    const own = { search: 'icp' };
    const now = range(0, 3000, (i) => (i === 7 || i === 2707 ? 'Renamed' : `Company ${i}`));
    const dry = await createChangeDetector(r.redis, r.prefix, 'hs', companies, 'p', own).unchanged(now);
    expect(dry.size).toBe(2998);
    // A dry run's read writes nothing.
    expect([...(await fields(r.redis, r.prefix, 'icp')).values()].every((v) => v.length === 1)).toBe(true);

    const detector = createChangeDetector(r.redis, r.prefix, 'hs', companies, 'p', own);
    const same = await detector.unchanged(now, { upgrade: true });
    expect(same.size).toBe(2998);
    expect(same.has('c-7') || same.has('c-2707')).toBe(false);
    await detector.remember([now[7]!, now[2707]!]);
    // The store before is read, never written: the records sent leave it (its values are older than the CRM's now).
    expect(await r.redis.hget(store.meta, 'n')).toBe(String(Number(stored) - 1));
    expect(await r.redis.hlen(legacy)).toBe(499);
    // A renamed search (no fingerprints) cannot take c-7's value before for the CRM's: it sends it.
    const renamed = createChangeDetector(r.redis, r.prefix, 'hs', companies, 'p', { search: 'icp-2' });
    expect([...(await renamed.unchanged(range(6, 9)))]).toEqual(['c-6', 'c-8']);
    // The flags are kept beside the fingerprints.
    const values = await fields(r.redis, r.prefix, 'icp');
    expect(values.size).toBe(3000);
    expect(values.get('c-1')).toMatch(/^3[A-Za-z0-9_-]{7}$/);
    expect(values.get('c-2000')).toMatch(/^1[A-Za-z0-9_-]{7}$/);
    expect(await members.counts(true)).toEqual({ members: 3000, pending: 0, unlisted: 2000 });

    // Gone by its TTL: the fingerprints alone answer.
    await r.redis.unlink(store.meta, legacy, ...(await r.redis.keys(`${store.buckets}*`)));
    const later = await createChangeDetector(r.redis, r.prefix, 'hs', companies, 'p', own).unchanged(now);
    expect(later.size).toBe(3000);
    expect(
      (await createChangeDetector(r.redis, r.prefix, 'hs', companies, 'p', own).unchanged(range(0, 3000))).size,
    ).toBe(2998);
  });

  it('runs with and without contacts do not thrash; another field going missing is sent again', async () => {
    const r = await testRedis('fp-contacts');
    cleanup = r.cleanup;
    const persons: ObjectTarget = {
      object: 'contacts',
      matchField: 'id',
      fields: ['email', 'firstname', 'jobtitle'],
      associate: { object: 'companies', matchField: 'id' },
    };
    const own = { search: 'people', passedBy: ['email'] };
    const detect = () => createChangeDetector(r.redis, r.prefix, 'hs', persons, 'p', own);
    const full = (i: number, email = `p${i}@x.example`): CrmRecord => ({
      key: `p-${i}`,
      properties: { email, firstname: `P${i}`, jobtitle: 'CEO' },
      companyKey: 'c-1',
    });
    const passedBy = (i: number): CrmRecord => {
      const { email: _, ...rest } = full(i).properties;
      return { ...full(i), properties: rest };
    };
    await detect().remember([full(1), full(2), full(3)]);
    // A reveal-once page: no contacts.
    expect([...(await detect().unchanged([passedBy(1), passedBy(2), passedBy(3)]))].sort()).toEqual([
      'p-1',
      'p-2',
      'p-3',
    ]);
    // p-2 renamed on a page without contacts: sent, its stored contacts print kept.
    const renamed = { ...passedBy(2), properties: { ...passedBy(2).properties, firstname: 'Renamed' } };
    expect((await detect().unchanged([renamed])).size).toBe(0);
    await detect().remember([renamed]);
    const back = { ...full(2), properties: { ...full(2).properties, firstname: 'Renamed' } };
    expect((await detect().unchanged([back])).size).toBe(1);
    // A changed email is a change; so is any other field gone missing, or another company link.
    expect((await detect().unchanged([full(1, 'new@x.example')])).size).toBe(0);
    const noTitle = { ...full(3), properties: { email: 'p3@x.example', firstname: 'P3' } };
    expect((await detect().unchanged([noTitle])).size).toBe(0);
    expect((await detect().unchanged([{ ...full(3), companyKey: 'c-2' }])).size).toBe(0);
    expect((await detect().unchanged([full(3)])).size).toBe(1);
  });

  it("a person upgraded from a page without contacts takes its contacts' hashes before until sent", async () => {
    const r = await testRedis('fp-migrate-contacts');
    cleanup = r.cleanup;
    const persons: ObjectTarget = { object: 'contacts', matchField: 'id', fields: ['email', 'firstname'] };
    const person = (i: number, email = `p${i}@x.example`): CrmRecord => ({
      key: `p-${i}`,
      properties: { email, firstname: `P${i}` },
    });
    const without = (i: number): CrmRecord => ({ key: `p-${i}`, properties: { firstname: `P${i}` } });
    // The release before remembered them with their contacts.
    await createChangeDetector(r.redis, r.prefix, 'hs', persons, 'p').remember([person(1), person(2)]);
    const detect = () =>
      createChangeDetector(r.redis, r.prefix, 'hs', persons, 'p', { search: 'people', passedBy: ['email'] });
    // A reveal-once page after the upgrade: unchanged, fingerprinted without a contacts part.
    expect((await detect().unchanged([without(1), without(2)], { upgrade: true })).size).toBe(2);
    expect([...(await fields(r.redis, r.prefix, 'people')).values()].every((v) => v.length === 8)).toBe(true);
    // Contacts again: compared with the hashes before, field by field.
    expect([...(await detect().unchanged([person(1), person(2, 'new@x.example')], { upgrade: true }))]).toEqual([
      'p-1',
    ]);
    expect((await fields(r.redis, r.prefix, 'people')).get('p-1')).toHaveLength(15);
    // Its fingerprint answers alone once the hashes before are gone.
    const before = changeHashKeys(changeHashKey(r.prefix, 'hs', persons, 'p'));
    await r.redis.unlink(before.meta, ...(await r.redis.keys(`${before.buckets}*`)));
    expect((await detect().unchanged([person(1)])).size).toBe(1);
  });

  it('a changed mapping, destination or CRM instance sends everything again', async () => {
    const r = await testRedis('fp-mapping');
    cleanup = r.cleanup;
    const own = { search: 'icp' };
    await createChangeDetector(r.redis, r.prefix, 'hs', companies, 'p', own).remember(range(0, 50));
    const same = (target: ObjectTarget, destination = 'hs', instance = 'p') =>
      createChangeDetector(r.redis, r.prefix, destination, target, instance, own)
        .unchanged(range(0, 50))
        .then((s) => s.size);
    expect(await same(companies)).toBe(50);
    expect(await same({ ...companies, fields: ['name', 'domain'] })).toBe(50);
    expect(await same({ ...companies, fields: ['domain', 'name', 'industry'] })).toBe(0);
    expect(await same({ ...companies, matchField: 'domain' })).toBe(0);
    expect(await same(companies, 'hs2')).toBe(0);
    expect(await same(companies, 'hs', 'other-portal')).toBe(0);
  });

  it('forget drops the fingerprint and keeps the flags; erasure and a leaver keep the counts exact', async () => {
    const r = await testRedis('fp-forget');
    cleanup = r.cleanup;
    const members = await membersOf(r, 300, 300);
    const own = { search: 'icp' };
    const detector = () => createChangeDetector(r.redis, r.prefix, 'hs', companies, 'p', own);
    // 300 members and 20 records the search wrote but no member (fingerprint only).
    await detector().remember(range(0, 320));
    const { meta } = recordStateKeys(r.prefix, 'icp', 'p');
    expect(await r.redis.hmget(meta, 'n', 'm')).toEqual(['320', '300']);

    const state = { redis: r.redis, keyPrefix: r.prefix, destination: 'hs', instance: 'p', search: 'icp' };
    await forgetOwnChanges(state, companies, ['c-5', 'c-305']);
    expect((await detector().unchanged(range(0, 320))).size).toBe(318);
    const values = await fields(r.redis, r.prefix, 'icp');
    expect(values.get('c-5')).toBe('3');
    expect(values.has('c-305')).toBe(false);
    expect(await r.redis.hmget(meta, 'n', 'm')).toEqual(['319', '300']);
    expect(await members.counts(true)).toEqual({ members: 300, pending: 0, unlisted: 0 });

    // c-9 leaves: no member, still listed, its fingerprint kept (its field too).
    await addRunMatched(
      r.redis,
      'icp',
      'r2',
      range(0, 300)
        .map((c) => c.key)
        .filter((k) => k !== 'c-9'),
      r.prefix,
    );
    expect(await members.settle('r2', rules)).toMatchObject({ left: 1 });
    expect((await fields(r.redis, r.prefix, 'icp')).get('c-9')).toMatch(/^2.{7}$/);
    expect(await r.redis.hmget(meta, 'n', 'm')).toEqual(['319', '299']);

    // Erasure removes the fields whole: a member's, a leaver's and a fingerprint-only one.
    await forgetMember(r.redis, 'icp', ['c-10', 'c-9', 'c-310'], true, r.prefix);
    const left = await fields(r.redis, r.prefix, 'icp');
    expect(['c-10', 'c-9', 'c-310'].some((k) => left.has(k))).toBe(false);
    expect(await r.redis.hmget(meta, 'n', 'm')).toEqual(['316', '298']);
    expect((await detector().unchanged(range(0, 320))).size).toBe(315);
  });
});
