/**
 * /metrics finds budget accounts and rate governors through the index their writers keep, not through a SCAN of
 * the keyspace: keys written behind the writers' back are not seen once the index is built, keys the writers wrote
 * are, an old database is indexed once on its first read, and entries whose keys are gone leave the index.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { budgetIndexKey, RedisBudgetLedger } from '../../src/source/budget-ledger.js';
import { readBudgetStates } from '../../src/source/budget-states.js';
import { listGovernorSnapshots } from '../../src/shared/governor-snapshots.js';
import { governorIndexKey, RateGovernor } from '../../src/shared/rate-governor.js';
import { testRedis } from '../helpers/redis.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

async function redisPrefix() {
  const r = await testRedis('metrics-index');
  cleanups.push(r.cleanup);
  return r;
}

const balance = {
  'x-rate-results-limit': '1000',
  'x-rate-results-limit-remaining': '900',
  'x-rate-results-limit-reset': '3600',
};

describe('metrics read an index of their keys', () => {
  it(
    'the budget ledger indexes its account when it writes a balance or books credits; readers use the index ' + 'only',
    async () => {
      const { redis, prefix } = await redisPrefix();
      const tokens = new RedisBudgetLedger(redis, `${prefix}:source:acct-tokens`, 0, {});
      await tokens.observeTokens(balance);
      const credits = new RedisBudgetLedger(redis, `${prefix}:source:acct-credits`, 0, {});
      const r = await credits.reserveCredits('run-1', 5);
      await credits.settleCredits('run-1', r.id, 5);
      expect((await redis.smembers(budgetIndexKey(prefix))).sort()).toEqual(['acct-credits', 'acct-tokens']);

      const states = await readBudgetStates(redis, prefix);
      expect(states.map((s) => [s.account, s.tokens?.remaining ?? null, s.creditsTotal])).toEqual([
        ['acct-credits', null, 5],
        ['acct-tokens', 900, 0],
      ]);
      // A key no ledger wrote (so not in the index) is not found: nothing walks the keyspace once the index is built.
      await redis.hset(
        `${prefix}:source:ghost:tokens`,
        'limit',
        1,
        'remaining',
        1,
        'resetAt',
        Date.now() + 60_000,
        'observedAt',
        Date.now(),
      );
      expect((await readBudgetStates(redis, prefix)).map((s) => s.account)).toEqual(['acct-credits', 'acct-tokens']);
      // An account whose keys are gone leaves the index.
      await redis.del(`${prefix}:source:acct-tokens:tokens`);
      expect((await readBudgetStates(redis, prefix)).map((s) => s.account)).toEqual(['acct-credits']);
      expect(await redis.smembers(budgetIndexKey(prefix))).toEqual(['acct-credits']);
    },
  );

  it(
    'governors index (remote, account, operation) when they settle, learn or record a wait; readers use the index ' +
      'only',
    async () => {
      const { redis, prefix } = await redisPrefix();
      const g = new RateGovernor(redis, prefix, 'hubspot', 'p1', { untilLearned: 'open' });
      await g.record('requests', '2xx');
      const learner = new RateGovernor(redis, prefix, 'source', 'abc', { untilLearned: 'open' });
      await learner.learn('search', { limit: 10, windowMs: 1000, mode: 'headers' });
      expect((await redis.smembers(governorIndexKey(prefix))).sort()).toEqual([
        'hubspot:p1:requests',
        'source:abc:search',
      ]);
      expect(
        (await listGovernorSnapshots(redis, prefix)).map((s) => `${s.remote}:${s.account}:${s.operation}`),
      ).toEqual(['hubspot:p1:requests', 'source:abc:search']);

      await redis.hset(`${prefix}:gov:salesforce:ghost:requests:stats`, '2xx', 1);
      expect(await listGovernorSnapshots(redis, prefix)).toHaveLength(2);
      await redis.del(`${prefix}:gov:source:abc:search:state`);
      expect((await listGovernorSnapshots(redis, prefix)).map((s) => s.remote)).toEqual(['hubspot']);
      expect(await redis.smembers(governorIndexKey(prefix))).toEqual(['hubspot:p1:requests']);
    },
  );

  it('a database written before the index existed is indexed once, on its first read', async () => {
    const { redis, prefix } = await redisPrefix();
    // What an older version left: the keys, no index.
    await redis.hset(
      `${prefix}:source:old-acct:tokens`,
      'limit',
      1000,
      'remaining',
      10,
      'resetAt',
      Date.now() + 60_000,
      'observedAt',
      Date.now(),
    );
    await redis.set(`${prefix}:source:old-credits:credits:total`, 7);
    await redis.hset(`${prefix}:gov:hubspot:old:requests:stats`, '2xx', 3);
    expect((await readBudgetStates(redis, prefix)).map((s) => s.account)).toEqual(['old-acct', 'old-credits']);
    expect((await listGovernorSnapshots(redis, prefix)).map((s) => s.requests['2xx'])).toEqual([3]);
    expect((await redis.smembers(budgetIndexKey(prefix))).sort()).toEqual(['old-acct', 'old-credits']);
    expect(await redis.smembers(governorIndexKey(prefix))).toEqual(['hubspot:old:requests']);
  });
});
