import { afterEach, describe, expect, it } from 'vitest';
import { listGovernorSnapshots } from '../../src/shared/governor-snapshots.js';
import { outcomeClass, RateGovernor } from '../../src/shared/rate-governor.js';
import { testRedis } from '../helpers/redis.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

async function redisPrefix() {
  const r = await testRedis('shared-governor');
  cleanups.push(r.cleanup);
  return r;
}

describe('shared rate governor (real Redis)', () => {
  it("closes an operation for every instance with the remote's error, and books what other clients used", async () => {
    const { redis, prefix } = await redisPrefix();
    const closedError = () => new Error('daily used up');
    const a = new RateGovernor(redis, prefix, 'hubspot', 'p1', {
      untilLearned: { limit: 100, windowMs: 1000 },
      closedError,
    });
    const b = new RateGovernor(redis, prefix, 'hubspot', 'p1', {
      untilLearned: { limit: 100, windowMs: 1000 },
      closedError,
    });
    await a.acquire('requests');
    // The server says none of 3 is left although we sent 1: the next request must wait for the window.
    await a.learn('requests', { limit: 3, windowMs: 1000, mode: 'headers' }, 0);
    let granted = false;
    const pending = b.acquire('requests').then(() => (granted = true));
    await new Promise((r) => setTimeout(r, 150));
    expect(granted).toBe(false);
    await pending;
    await a.close('requests', 60_000);
    await expect(b.acquire('requests')).rejects.toThrow('daily used up');
    expect(await b.current('requests')).toEqual({ limit: 3, windowMs: 1000, mode: 'headers' });
  });

  it(
    'snapshots list requests by outcome, time waited and the learned limit per (remote, account, ' + 'operation)',
    async () => {
      const { redis, prefix } = await redisPrefix();
      const g = new RateGovernor(redis, prefix, 'source', 'abc123', {
        untilLearned: 'probe',
        defaultWindowMs: 1000,
        guardMs: 0,
      });
      await g.acquire('search');
      await g.learn('search', { limit: 1, windowMs: 300, mode: 'headers' });
      for (const status of [200, 201, 404, 429, 503, undefined]) await g.record('search', outcomeClass(status));
      await g.acquire('search'); // waits for the window: the wait is recorded
      const other = new RateGovernor(redis, prefix, 'hubspot', '12345', { untilLearned: 'open' });
      await other.record('requests', '2xx');
      const snapshots = await listGovernorSnapshots(redis, prefix);
      expect(snapshots).toHaveLength(2);
      const [hubspot, source] = snapshots;
      expect(hubspot).toEqual({
        remote: 'hubspot',
        account: '12345',
        operation: 'requests',
        limit: null,
        windowMs: null,
        mode: null,
        learnedAt: null,
        changedAt: null,
        daily: null,
        requests: { '2xx': 1, '4xx': 0, '5xx': 0, '429': 0, network: 0 },
        waitedSeconds: 0,
      });
      expect(source).toMatchObject({
        remote: 'source',
        account: 'abc123',
        operation: 'search',
        limit: 1,
        windowMs: 300,
        mode: 'headers',
        requests: { '2xx': 2, '4xx': 1, '5xx': 1, '429': 1, network: 1 },
      });
      expect(source!.waitedSeconds).toBeGreaterThan(0.05);
      // when the limit was learned (Redis clock), and when it last changed
      expect(Math.abs(source!.learnedAt! - Date.now())).toBeLessThan(60_000);
      expect(source!.changedAt).toBe(source!.learnedAt);
    },
  );

  it(
    'settle books one answer in one call (count, restamp, probe freed, limit, daily allowance), and the extra ' +
      'commands with it',
    async () => {
      const { redis, prefix } = await redisPrefix();
      const g = new RateGovernor(redis, prefix, 'hubspot', 'p2', { untilLearned: 'probe', defaultWindowMs: 1000 });
      const grant = await g.acquire('requests');
      const log = `${prefix}:gov:hubspot:p2:requests:log`;
      const granted = Number(await redis.zscore(log, grant));
      await new Promise((r) => setTimeout(r, 30));
      await g.settle(
        'requests',
        {
          outcome: '2xx',
          grant,
          releaseProbe: true,
          learned: { limit: 5, windowMs: 1000, mode: 'headers' },
          remaining: 1,
          daily: { limit: 1000, remaining: 998 },
        },
        (batch) => batch.set(`${prefix}:extra`, 'x'),
      );
      // restamped when the answer came; the server's remaining 1 of 5 with 1 in our log books 3 for other clients
      expect(Number(await redis.zscore(log, grant))).toBeGreaterThan(granted + 20);
      expect(await redis.zcard(log)).toBe(4);
      expect(await g.current('requests')).toEqual({ limit: 5, windowMs: 1000, mode: 'headers' });
      expect(await g.daily('requests')).toEqual({ limit: 1000, remaining: 998 });
      expect(await redis.exists(`${prefix}:gov:hubspot:p2:requests:probe`)).toBe(0);
      expect(await redis.get(`${prefix}:extra`)).toBe('x');
      expect(await redis.ttl(`${prefix}:gov:hubspot:p2:requests:stats`)).toBeGreaterThan(0);
      const [snapshot] = await listGovernorSnapshots(redis, prefix);
      expect(snapshot?.requests['2xx']).toBe(1);
      expect(snapshot).toMatchObject({
        limit: 5,
        windowMs: 1000,
        mode: 'headers',
        daily: { limit: 1000, remaining: 998, at: snapshot!.learnedAt },
      });
      // Another process confirms the same limit later: learnedAt moves, changedAt stays; a new limit moves both.
      await new Promise((r) => setTimeout(r, 20));
      const again = new RateGovernor(redis, prefix, 'hubspot', 'p2', { untilLearned: 'probe', defaultWindowMs: 1000 });
      await again.learn('requests', { limit: 5, windowMs: 1000, mode: 'headers' });
      const [confirmed] = await listGovernorSnapshots(redis, prefix);
      expect(confirmed!.learnedAt!).toBeGreaterThan(snapshot!.learnedAt!);
      expect(confirmed!.changedAt).toBe(snapshot!.changedAt);
      await again.learn('requests', { limit: 7, windowMs: 1000, mode: 'headers' });
      const [changed] = await listGovernorSnapshots(redis, prefix);
      expect(changed).toMatchObject({ limit: 7, changedAt: changed!.learnedAt });
      expect(changed!.changedAt!).toBeGreaterThan(snapshot!.changedAt!);
    },
  );
});
