/**
 * openSoon (jobs/sync-search/open-soon.ts): the CRM end opens next to the plan's first requests, not before them,
 * and a failure to open surfaces where the run awaits it, never as an unhandled rejection of a run that ended first.
 */
import { describe, expect, it } from 'vitest';
import { openSoon } from '../../jobs/sync-search/open-soon.js';

describe('openSoon', () => {
  it('starts the work after the caller went on (its requests go out first), and hands over its result', async () => {
    const order: string[] = [];
    const opening = openSoon(async () => {
      order.push('open');
      return 42;
    });
    order.push('caller');
    await Promise.resolve();
    expect(order).toEqual(['caller']);
    expect(await opening).toBe(42);
    expect(order).toEqual(['caller', 'open']);
  });

  it('a failure surfaces where it is awaited, and is no unhandled rejection where it is not', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => {
      unhandled.push(reason);
    };
    process.on('unhandledRejection', onUnhandled);
    try {
      const failing = openSoon(() => Promise.reject(new Error('bad credentials')));
      await expect(failing).rejects.toThrow('bad credentials');
      openSoon(() => Promise.reject(new Error('never awaited'))); // a run refused before it needs its destination
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
