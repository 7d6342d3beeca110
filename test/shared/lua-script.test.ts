/**
 * Redis Lua scripts as `.lua` files run by SHA (src/shared/lua-script.ts): each connection sends a script whole once
 * and then only its SHA, survives Redis forgetting it (SCRIPT FLUSH, a restart), and a wrong call says what is wrong.
 * On a Redis of the test's own, so its command counts are this test's alone and SCRIPT FLUSH touches nobody else.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { acquireRunLock } from '../../src/runs/run-lock.js';
import { RedisBudgetLedger } from '../../src/source/budget-ledger.js';
import { defineLua, luaScript, LuaScriptError, queueLua, runLua } from '../../src/shared/lua-script.js';
import { RateGovernor } from '../../src/shared/rate-governor.js';
import { closeRedis, createRedis } from '../../src/shared/redis.js';
import { privateRedis, type PrivateRedis } from '../queue/private-redis.js';

let server: PrivateRedis;
let redis: Redis;

beforeAll(async () => {
  server = await privateRedis('lua-test');
  await server.start();
  redis = createRedis(server.url, { maxRetriesPerRequest: 3 });
});
afterAll(async () => {
  await closeRedis(redis);
  await server.destroy();
});

/** Calls of EVAL and EVALSHA (and failed EVALSHA) the server has answered so far. */
async function scriptCalls(): Promise<{ eval: number; evalsha: number; failedEvalsha: number }> {
  const info = await redis.info('commandstats');
  const stat = (name: string, field: string): number =>
    Number(new RegExp(`cmdstat_${name}:.*?\\b${field}=(\\d+)`).exec(info)?.[1] ?? 0);
  return {
    eval: stat('eval', 'calls'),
    evalsha: stat('evalsha', 'calls'),
    failedEvalsha: stat('evalsha', 'failed_calls'),
  };
}

const ONE = luaScript('luaTestEcho', 1, new URL('./fixtures/echo.lua', import.meta.url));

describe('Lua scripts from files', () => {
  it('a connection sends each script whole once, then only its SHA (also in batches)', async () => {
    await redis.config('RESETSTAT');
    const governor = new RateGovernor(redis, 'lua', 'api', 'acct', { untilLearned: { limit: 100, windowMs: 1000 } });
    const ledger = new RedisBudgetLedger(redis, 'lua:ledger', 0, {});
    for (let i = 0; i < 3; i++) {
      // a grant with the ledger's reservation in the same batch, its answer, a heartbeat
      let reserved = 0;
      const grant = await governor.acquire('search', undefined, {
        append: (batch) => void ledger.reserveTokensInto(batch, 5),
        read: ([reply]) => void (reserved = (reply as [number, number])[0]),
      });
      expect(reserved).toBe(5);
      await governor.record('search', '2xx', grant);
      expect(await governor.heartbeat('search', 'run-1', 1000)).toBe(1);
      const lock = await acquireRunLock(redis, 'a-search', `run-${i}`, { prefix: 'lua' });
      await lock.release();
    }
    // 6 scripts (acquire, reserve tokens, answer, heartbeat, run lock, release) x 3 rounds
    expect(await scriptCalls()).toEqual({ eval: 6, evalsha: 12, failedEvalsha: 0 });
  });

  it('when Redis has forgotten the scripts, the next calls send them again and answer as before', async () => {
    const ledger = new RedisBudgetLedger(redis, 'lua:flushed', 0, {});
    await ledger.observeTokens({
      'x-rate-results-limit': '100',
      'x-rate-results-limit-remaining': '40',
      'x-rate-results-limit-reset': '60',
    });
    await redis.script('FLUSH');
    await redis.config('RESETSTAT');
    expect((await ledger.reserveTokens(10)).granted).toBe(10);
    // in a batch too: the reservation's reply is the script's, not the NOSCRIPT error
    const batch = redis.pipeline();
    const pending = ledger.reserveTokensInto(batch, 50);
    const replies = (await batch.exec()) ?? [];
    expect(replies[0]?.[0]).toBeNull();
    expect(pending.read(replies[0]?.[1])).toMatchObject({ granted: 30, available: 30 });
    expect(await scriptCalls()).toMatchObject({ eval: 1, failedEvalsha: 1 });
  });

  it(
    'says which script was called wrongly: keys miscounted, a batch made before the script was defined, a name ' +
      'taken',
    async () => {
      const other = createRedis(server.url, { maxRetriesPerRequest: 3 });
      try {
        const early = other.pipeline();
        await expect(runLua(other, ONE, ['k1', 'k2'])).rejects.toThrow(/Lua script luaTestEcho: takes 1 keys, got 2/);
        expect(() => queueLua(early, ONE, ['lua:k'], ['x'])).toThrow(LuaScriptError);
        expect(await queueLua(other.pipeline(), ONE, ['lua:k'], ['x']).exec()).toEqual([[null, 'x']]);
        expect(() => defineLua(other, { ...ONE, lua: 'return 2' })).toThrow(
          /another script is defined under the same name/,
        );
        expect(await runLua(other, ONE, ['lua:k'], ['y'])).toBe('y');
      } finally {
        await closeRedis(other);
      }
    },
  );
});
