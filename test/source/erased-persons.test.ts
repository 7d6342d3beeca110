/**
 * The store of erased persons (src/source/erased-persons.ts) on real Redis, and the suppression decision it feeds:
 * only SHA-256 references are stored; an erased id is suppressed before the reveal, an erased email after it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ErasedPersons } from '../../src/source/erased-persons.js';
import { Suppression } from '../../src/source/suppression.js';
import { testRedis } from '../helpers/redis.js';

let done: (() => Promise<void>) | undefined;
afterEach(async () => {
  await done?.();
  done = undefined;
});

const PATHS = { companyId: 'companyId', companyDomain: 'company.domain', email: 'contacts.email' };

describe('ErasedPersons', () => {
  it(
    'keeps references, not values; a run suppresses an erased id before the reveal and an erased email ' + 'after',
    async () => {
      const { redis, prefix, cleanup } = await testRedis('erased');
      done = cleanup;
      const store = new ErasedPersons(redis, prefix);
      expect(await store.add({ personId: 'p_1', email: 'Jane@X.io' })).toBe(2);
      expect(await store.add({ email: 'bob@y.io' })).toBe(1);
      expect(await store.holds({ email: 'jane@x.io' })).toBe(true);
      expect(await store.holds({ personId: 'p_2' })).toBe(false);
      const stored = (await redis.smembers(`${prefix}:suppress:erased`)).join(' ');
      for (const value of ['p_1', 'jane', 'Jane', 'bob']) expect(stored).not.toContain(value);

      const erased = await store.load();
      expect({ ids: erased.ids, emails: erased.emails }).toEqual({ ids: 1, emails: 2 });
      const s = new Suppression([], 'id', PATHS, undefined, erased);
      expect(s.empty).toBe(false);
      expect(s.decidesBeforeReveal).toBe(true);
      expect(s.beforeReveal({ id: 'p_1' })).toBe(true);
      expect(s.beforeReveal({ id: 'p_10' })).toBe(false);
      expect(s.suppressed({ id: 'p_3', contacts: { email: 'BOB@y.io' } })).toBe(true);
      expect(s.suppressed({ id: 'p_3', contacts: { email: 'bob@y.iox' } })).toBe(false);
      const emailsOnly = new Suppression(
        [],
        'id',
        PATHS,
        undefined,
        await new ErasedPersons(redis, `${prefix}:other`).load(),
      );
      expect(emailsOnly.empty).toBe(true);
    },
  );
});
