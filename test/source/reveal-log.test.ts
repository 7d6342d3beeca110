/**
 * The reveal log (src/source/reveal-log.ts) on real Redis: lines per paid reveal, filtered by time and search, kept
 * `logDays`, and an erasure that removes every line of one person and leaves one line saying it happened.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { RevealLog } from '../../src/source/reveal-log.js';
import { DAY_MS } from '../../src/source/reveal-store.js';
import { testRedis } from '../helpers/redis.js';

let done: (() => Promise<void>) | undefined;
afterEach(async () => {
  await done?.();
  done = undefined;
});

async function open(
  logDays = 400,
): Promise<{ log: RevealLog; keys: () => Promise<string[]>; ttl: (k: string) => Promise<number> }> {
  const { redis, prefix, cleanup } = await testRedis('reveal-log');
  done = cleanup;
  return {
    log: new RevealLog(redis, `${prefix}:source:acct`, logDays),
    keys: () => redis.keys(`${prefix}*`),
    ttl: (k) => redis.ttl(k),
  };
}

const all = async <T>(it: AsyncIterable<T>): Promise<T[]> => {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
};

describe('RevealLog', () => {
  it('lists each reveal with its search, segment, run and time; filters by search and time', async () => {
    const { log } = await open();
    const now = Date.now();
    await log.append({ runId: 'r1', search: 'a', segment: 's1', ids: ['p1', 'p2'], atMs: now - 3 * DAY_MS });
    await log.append({ runId: 'r2', search: 'b', segment: 's2', ids: ['p3'], atMs: now - DAY_MS });
    await log.append({ runId: 'r3', search: 'a', segment: 's1', ids: [], atMs: now });
    const lines = await all(log.lines({ nowMs: now }));
    expect(lines).toEqual([
      {
        event: 'reveal',
        at: new Date(now - 3 * DAY_MS).toISOString(),
        personId: 'p1',
        search: 'a',
        segment: 's1',
        runId: 'r1',
      },
      {
        event: 'reveal',
        at: new Date(now - 3 * DAY_MS).toISOString(),
        personId: 'p2',
        search: 'a',
        segment: 's1',
        runId: 'r1',
      },
      {
        event: 'reveal',
        at: new Date(now - DAY_MS).toISOString(),
        personId: 'p3',
        search: 'b',
        segment: 's2',
        runId: 'r2',
      },
    ]);
    expect((await all(log.lines({ search: 'b', nowMs: now }))).map((l) => l.event === 'reveal' && l.personId)).toEqual([
      'p3',
    ]);
    expect(await all(log.lines({ sinceMs: now - 2 * DAY_MS, nowMs: now }))).toHaveLength(1);
  });

  it('keeps logDays: older lines are not listed and each day key expires after them', async () => {
    const { log, keys, ttl } = await open(10);
    const now = Date.now();
    await log.append({ runId: 'old', search: 'a', segment: 's', ids: ['p1'], atMs: now - 12 * DAY_MS });
    await log.append({ runId: 'new', search: 'a', segment: 's', ids: ['p2'], atMs: now });
    expect((await all(log.lines({ nowMs: now }))).map((l) => l.event === 'reveal' && l.runId)).toEqual(['new']);
    const today = (await keys()).find((k) => k.endsWith(`:reveal-log:${Math.floor(now / DAY_MS)}`))!;
    const left = await ttl(today);
    expect(left).toBeGreaterThan(10 * 86_400);
    expect(left).toBeLessThanOrEqual(12 * 86_400);
    // the old day's key was written already expired
    expect(await keys()).toHaveLength(1);
  });

  it(
    'erase removes every reveal of one person, drops emptied batches and leaves one erasure line without the ' + 'id',
    async () => {
      const { log } = await open();
      const now = Date.now();
      await log.append({ runId: 'r1', search: 'a', segment: 's', ids: ['p1', 'p10', 'p2'], atMs: now - 5 * DAY_MS });
      await log.append({ runId: 'r2', search: 'a', segment: 's', ids: ['p1'], atMs: now - 5 * DAY_MS });
      await log.append({ runId: 'r3', search: 'b', segment: 's', ids: ['p3', 'p1'], atMs: now });
      expect(await log.count('p1', now)).toBe(3);
      expect(await log.erase('p1', now)).toBe(3);
      expect(await log.count('p1', now)).toBe(0);
      const lines = await all(log.lines({ nowMs: now }));
      expect(lines.map((l) => (l.event === 'reveal' ? `${l.runId}:${l.personId}` : l.event))).toEqual([
        'r1:p10',
        'r1:p2',
        'r3:p3',
        'erasure',
      ]);
      expect(JSON.stringify(lines)).not.toMatch(/"p1"/);
      expect(await log.erase('p9', now)).toBe(0);
    },
  );
});
