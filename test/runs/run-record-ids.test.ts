import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CheckpointStore, type RunCheckpoint } from '../../src/runs/checkpoint-store.js';
import { RunRecordIds, runRecordIdsKey } from '../../src/runs/run-record-ids.js';
import { emptyCounts } from '../../src/runs/run-summary.js';
import { testRedis } from '../helpers/redis.js';

let redis: Redis;
let prefix: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ redis, prefix, cleanup } = await testRedis('run-record-ids'));
});
afterEach(async () => cleanup());

function checkpoint(runId: string): RunCheckpoint {
  return { runId, startedAt: new Date().toISOString(), counted: 0, counts: emptyCounts(), partitions: [] };
}

/** Every key of run `runId`'s ids: the meta hash and its buckets. */
async function keysOf(runId: string): Promise<string[]> {
  return redis.keys(`${runRecordIdsKey('s', runId, prefix)}*`);
}

describe('RunRecordIds (a run dedup set in Redis)', () => {
  it(
    'keeps in Redis the ids of committed batches, written with the checkpoint; a later attempt admits again ' +
      'only what was never committed',
    async () => {
      const ids = new RunRecordIds(redis, 's', 'r1', prefix);
      const store = new CheckpointStore(redis, 's', { prefix, along: ids });
      // Two journeys in flight together: an id is admitted once, a repeat within a page too.
      const [one, two] = await Promise.all([ids.admit(['a', 'b', 'c', 'a']), ids.admit(['b', 'd'])]);
      expect([...one, ...two].filter(Boolean)).toHaveLength(4);
      expect(one[3]).toBe(false);
      ids.committed(['a', 'b']);
      // Not before the checkpoint that moves past their batch.
      expect(await keysOf('r1')).toEqual([]);
      await store.save(checkpoint('r1'));
      expect((await keysOf('r1')).length).toBeGreaterThan(0);
      expect(await ids.admit(['a', 'b', 'c', 'd'])).toEqual([false, false, false, false]);

      // The attempt died with c and d in flight: the next one admits them again, and only them.
      const resumed = new RunRecordIds(redis, 's', 'r1', prefix);
      expect(await resumed.admit(['a', 'b', 'c', 'd', 'e'])).toEqual([false, false, true, true, true]);
      // Another run's set is its own.
      expect(await new RunRecordIds(redis, 's', 'r2', prefix).admit(['a'])).toEqual([true]);
    },
  );

  it('stays in listpack buckets with a TTL, and is dropped whole in bounded steps', async () => {
    const ids = new RunRecordIds(redis, 's', 'big', prefix);
    const all = Array.from({ length: 60_000 }, (_, n) => `c_${n.toString(36).padStart(6, '0')}`);
    for (let i = 0; i < all.length; i += 1000) {
      const page = all.slice(i, i + 1000);
      expect((await ids.admit(page)).every(Boolean)).toBe(true);
      ids.committed(page);
      await ids.save();
    }
    const meta = runRecordIdsKey('s', 'big', prefix);
    expect(await redis.hget(meta, 'n')).toBe(String(all.length));
    const keys = await keysOf('big');
    // More buckets than one drop step deletes.
    expect(keys.length).toBeGreaterThan(1001);
    const bucket = keys.find((k) => k !== meta) as string;
    expect(await redis.object('ENCODING', bucket)).toBe('listpack');
    expect(await redis.ttl(bucket)).toBeGreaterThan(0);
    expect(await new RunRecordIds(redis, 's', 'big', prefix).admit([all[0] as string, 'new'])).toEqual([false, true]);
    await ids.drop();
    expect(await keysOf('big')).toEqual([]);
  });
});
