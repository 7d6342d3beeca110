/** The dashboard parses an overview again only when its stored text changed, and forgets searches no longer asked. */
import { describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { ParsedOverviews } from '../../src/runs/parsed-overviews.js';
import { overviewOf, readOverviews } from '../../src/runs/run-overview.js';
import { emptyCounts, type RunSummary } from '../../src/runs/run-summary.js';

const run = (search: string, fetched: number): RunSummary => ({
  ...emptyCounts(),
  search,
  status: 'completed',
  durationMs: 1,
  runId: `${search}-${fetched}`,
  startedAt: '',
  finishedAt: '',
  dryRun: false,
  partitions: 1,
  fetched,
});

/** A Redis whose GETs answer `values` (search -> stored text) as they are at each read. */
function answering(values: Map<string, string>): Redis {
  const keys: string[] = [];
  const pipeline = {
    get: (key: string) => (keys.push(key), pipeline),
    exec: () => Promise.resolve(keys.splice(0).map((k) => [null, values.get(k.split(':').at(-2) ?? '')])),
  };
  return { pipeline: () => pipeline } as unknown as Redis;
}

describe('parsed overviews', () => {
  it('gives the same objects while the stored text is unchanged, new ones once it changed', async () => {
    const values = new Map(['a', 'b'].map((s) => [s, JSON.stringify(overviewOf([run(s, 1)]))]));
    const redis = answering(values);
    const parsed = new ParsedOverviews();
    const [a1, b1] = await readOverviews(redis, ['a', 'b'], 'p', { parsed });
    values.set('b', JSON.stringify(overviewOf([run('b', 2), run('b', 1)])));
    const [a2, b2] = await readOverviews(redis, ['a', 'b'], 'p', { parsed });
    expect(a2).toBe(a1);
    expect(b2).not.toBe(b1);
    expect(b2?.last?.fetched).toBe(2);
    expect(b2?.recent.map((r) => r.fetched)).toEqual([2, 1]);
    // Without kept overviews every read parses anew.
    expect((await readOverviews(redis, ['a'], 'p'))[0]).not.toBe(a2);
  });

  it('forgets a search no longer read (removed from the config)', async () => {
    const values = new Map(['a', 'b', 'c'].map((s) => [s, JSON.stringify(overviewOf([run(s, 1)]))]));
    const parsed = new ParsedOverviews();
    await readOverviews(answering(values), ['a', 'b', 'c'], 'p', { parsed });
    expect(parsed.size).toBe(3);
    await readOverviews(answering(values), ['a'], 'p', { parsed });
    expect(parsed.size).toBe(1);
  });
});
