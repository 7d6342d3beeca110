import { afterEach, describe, expect, it } from 'vitest';
import { ApiGovernor, parseRateLimitHeaders, windowEndsInMs } from '../../src/source/rate-limit-headers.js';
import { testRedis } from '../helpers/redis.js';

const fallback = { search: 20, count: 10, dictionary: 10, windowSeconds: 1 };
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

async function setup(guardMs = 50): Promise<{ a: ApiGovernor; b: ApiGovernor }> {
  const { redis, prefix, cleanup } = await testRedis('governor');
  cleanups.push(cleanup);
  // Two instances on one key base stand for two processes of one account.
  return {
    a: new ApiGovernor(redis, prefix, 'acct', fallback, { guardMs }),
    b: new ApiGovernor(redis, prefix, 'acct', fallback, { guardMs }),
  };
}

describe('RateLimit header parsing', () => {
  it('reads the policy, and the limit alone', () => {
    expect(parseRateLimitHeaders({ 'ratelimit-policy': '30;w=2' })).toEqual({ limit: 30, windowMs: 2000 });
    expect(parseRateLimitHeaders({ 'ratelimit-policy': '500;w=60', 'ratelimit-limit': '500' })).toEqual({
      limit: 500,
      windowMs: 60000,
    });
    expect(parseRateLimitHeaders({ 'ratelimit-policy': '10;w=0.5' })).toEqual({ limit: 10, windowMs: 500 });
    expect(parseRateLimitHeaders({ 'ratelimit-limit': '42' })).toEqual({ limit: 42, windowMs: null });
    expect(parseRateLimitHeaders({})).toBeNull();
  });
});

describe('RateLimit-Reset: when the window that counted a request ends at the latest', () => {
  it(
    'adds a whole second to whole seconds (rounded either way), the last digit to decimals, and ignores the ' + 'rest',
    () => {
      expect(windowEndsInMs({ 'ratelimit-reset': '7' })).toBe(8000);
      expect(windowEndsInMs({ 'ratelimit-reset': '0' })).toBe(1000);
      expect(windowEndsInMs({ 'ratelimit-reset': '8.1' })).toBe(8200);
      expect(windowEndsInMs({ 'ratelimit-reset': '0.250' })).toBe(251);
      expect(windowEndsInMs({ 'ratelimit-reset': ' 12 ' })).toBe(13000);
      for (const odd of ['-1', 'soon', 'Wed, 21 Oct 2026 07:28:00 GMT', '', '1e3'])
        expect(windowEndsInMs({ 'ratelimit-reset': odd })).toBeUndefined();
      expect(windowEndsInMs({})).toBeUndefined();
    },
  );
});

describe('API governor (real Redis)', () => {
  it('a grant leaves the log when the server window that counted it has ended, not a whole window later', async () => {
    const { a } = await setup(50);
    await a.observe('search', { 'ratelimit-policy': '2;w=20' });
    const learned = { limit: 2, windowMs: 20_000, mode: 'headers' as const };
    const early = await a.acquire('search');
    const whole = await a.acquire('search');
    // The first answer says its window ends within 100 ms; the second says nothing of its window.
    await a.settle('search', { outcome: '2xx', grant: early, learned, windowEndsInMs: 100 });
    await a.settle('search', { outcome: '2xx', grant: whole, learned });
    const t0 = Date.now();
    await a.acquire('search', AbortSignal.timeout(5_000));
    expect(Date.now() - t0).toBeLessThan(5_000);
    // Both slots taken again (one by the grant just given, one held its whole window): the next one must wait.
    await expect(a.acquire('search', AbortSignal.timeout(600))).rejects.toThrow();
  });

  it('a Reset longer than the window never lets a grant leave before one window + guard', async () => {
    const { a } = await setup(50);
    await a.observe('search', { 'ratelimit-policy': '1;w=20' });
    const grant = await a.acquire('search');
    await a.settle('search', {
      outcome: '2xx',
      grant,
      learned: { limit: 1, windowMs: 20_000, mode: 'headers' },
      windowEndsInMs: 25_000,
    });
    await expect(a.acquire('search', AbortSignal.timeout(600))).rejects.toThrow();
  });

  it('lets one probe request through until the limit is learned', async () => {
    const { a, b } = await setup();
    await a.acquire('search');
    let second = false;
    const pending = b.acquire('search').then(() => (second = true));
    await new Promise((r) => setTimeout(r, 120));
    expect(second).toBe(false);
    await a.observe('search', {
      'ratelimit-policy': '5;w=1',
      'ratelimit-limit': '5',
      'ratelimit-remaining': '4',
      'ratelimit-reset': '1',
    });
    await pending;
    expect(second).toBe(true);
    expect(await a.current('search')).toEqual({ limit: 5, windowMs: 1000, mode: 'headers' });
  });

  it('never grants more than limit in any window + guard span, across instances, and uses the allowance', async () => {
    const { a, b } = await setup(50);
    await a.acquire('count');
    await a.observe('count', { 'ratelimit-policy': '4;w=0.4' });
    const grants: number[] = [];
    const start = Date.now();
    const worker = async (g: ApiGovernor): Promise<void> => {
      while (Date.now() - start < 1500) {
        await g.acquire('count');
        grants.push(Date.now());
      }
    };
    await Promise.all([worker(a), worker(b), worker(a), worker(b)]);
    grants.sort((x, y) => x - y);
    for (let i = 0; i < grants.length; i++) {
      const inWindow = grants.filter((t) => t >= grants[i]! && t < grants[i]! + 400).length;
      expect(inWindow).toBeLessThanOrEqual(4);
    }
    // 1.5 s at 4 per 450 ms (plus the probe's slot): about 13-16 grants; a governor that wastes capacity gets far
    // fewer.
    expect(grants.length).toBeGreaterThanOrEqual(12);
  });

  it(
    'falls back to a share of the configured limit when headers are absent, never looser than a learned ' + 'rate',
    async () => {
      const { a } = await setup();
      await a.acquire('search');
      expect(await a.observe('search', {})).toEqual({ limit: 18, windowMs: 1000, mode: 'fallback' });
      await a.observe('dictionary', { 'ratelimit-policy': '3;w=1' });
      await a.observe('dictionary', {});
      expect(await a.current('dictionary')).toEqual({ limit: 3, windowMs: 1000, mode: 'fallback' });
    },
  );

  it('pauses every instance after a 429 for Retry-After', async () => {
    const { a, b } = await setup();
    await a.observe('search', { 'ratelimit-policy': '100;w=1' });
    await a.block('search', 300);
    const t0 = Date.now();
    await b.acquire('search');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(250);
  });

  it('operations have separate windows', async () => {
    const { a } = await setup();
    await a.observe('search', { 'ratelimit-policy': '1;w=5' });
    await a.observe('count', { 'ratelimit-policy': '5;w=1' });
    await a.acquire('search');
    const t0 = Date.now();
    for (let i = 0; i < 5; i++) await a.acquire('count');
    expect(Date.now() - t0).toBeLessThan(200);
  });
});
