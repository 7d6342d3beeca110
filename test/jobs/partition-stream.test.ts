/**
 * The partitions of a run as a stream into its walk (jobs/sync-search/partition-stream.ts): largest waiting first,
 * pieces put back while the walk runs are taken from the same stream, and it ends only once the plan is done and
 * every partition taken was released. Fake timers: a consumer that waits is woken by the change itself, never by
 * a timer (no polling).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PartitionStream } from '../../jobs/sync-search/partition-stream.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** Lets the stream's pending promises run (no timer advances). */
const flush = async (): Promise<void> => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};

describe('the partition stream', () => {
  it(
    'gives the largest waiting first, takes pieces put back mid-walk, and ends once the plan is done and every ' +
      'partition released',
    async () => {
      const sizes = [10, 50, 30, 0, 0, 40];
      const stream = new PartitionStream((i) => sizes[i] ?? 0);
      stream.add([0, 1, 2]);
      const taken: number[] = [];
      let ended = false;
      const it = stream.take(new AbortController().signal)[Symbol.asyncIterator]();
      const next = async (): Promise<number | undefined> => {
        const r = await it.next();
        if (r.done) ended = true;
        else taken.push(r.value);
        return r.done ? undefined : r.value;
      };
      expect(await next()).toBe(1);
      expect(await next()).toBe(2);
      // the plan settles another partition: it goes before the smaller one waiting
      stream.add([5]);
      expect(await next()).toBe(5);
      expect(await next()).toBe(0);
      // nothing waits, the plan is still open: the walk waits, and is woken by the plan being done... but partition 1
      // is still walked, and splits into pieces 3 and 4 that go back into the stream
      const waiting = next();
      stream.planDone();
      await flush();
      expect(ended).toBe(false);
      stream.add([3, 4]);
      stream.release();
      expect(await waiting).toBe(3);
      expect(await next()).toBe(4);
      // every partition taken is released: the stream ends
      const last = next();
      for (let i = 0; i < 5; i++) stream.release();
      await last;
      expect(ended).toBe(true);
      expect(taken).toEqual([1, 2, 5, 0, 3, 4]);
    },
  );

  it(
    'a partition retried goes first; a walk that stops ends its wait at once; a failed plan fails the ' + 'take',
    async () => {
      const stream = new PartitionStream((i) => i);
      stream.add([1, 2]);
      const stop = new AbortController();
      const it = stream.take(stop.signal)[Symbol.asyncIterator]();
      expect((await it.next()).value).toBe(2);
      stream.retry(2);
      expect((await it.next()).value).toBe(2);
      expect((await it.next()).value).toBe(1);
      const waiting = it.next();
      stop.abort();
      expect(await waiting).toEqual({ done: true, value: undefined });

      const failing = new PartitionStream(() => 0);
      const wait = failing.take(new AbortController().signal)[Symbol.asyncIterator]().next();
      failing.planFailed(new Error('split failed'));
      await expect(wait).rejects.toThrow('split failed');
    },
  );
});
