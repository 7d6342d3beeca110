/**
 * Many small partitions, largest first (PartitionOptions.pieceRecords): what the walk needs to keep its tail short
 * with journeys sized at run time. Real emulator, real Redis; the counts are checked against the emulator's own.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Partition } from '../../src/source/index.js';
import { ids, sourceFixture, walkAll, type SourceFixture } from './source-fixture.js';

let fx: SourceFixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

const account = { accounts: [{ clientId: 'demo-client', clientSecret: 'demo-secret', accountId: 'demo', limits: { search: 100_000, count: 100_000, dictionary: 100_000 } }] };

/**
 * Share of the walk's capacity lost to its tail when `journeys` walk the pieces largest first, each taking the next
 * piece when free (a piece's walk time is proportional to its records).
 */
function tailShare(counts: number[], journeys: number): number {
  const free = new Array<number>(journeys).fill(0);
  for (const c of counts) {
    const i = free.indexOf(Math.min(...free));
    free[i] = (free[i] as number) + c;
  }
  const makespan = Math.max(...free);
  return (journeys * makespan - counts.reduce((a, b) => a + b, 0)) / (journeys * makespan);
}

const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);
const countsOf = (parts: Partition[]): number[] => parts.map((p) => p.count);

describe('the partition plan for a walk sized at run time', () => {
  it('plans small pieces largest first, covering the filter exactly, with a tail under ~3% for the journeys it was sized for', async () => {
    fx = await sourceFixture({ companies: 60_000, persons: 1000, ...account });
    const filter = { company: { headcount: { gte: 1 } } };
    const total = await fx.client.count('companies', filter);
    const journeys = 10;
    const pieceRecords = Math.floor((0.12 * total) / journeys); // the rule of jobs/sync-search/plan-run.ts
    const before = fx.client.stats().requests.count;
    const parts = await fx.client.partition('companies', filter, { pieceRecords, total, maxCounts: 250 });
    const spent = fx.client.stats().requests.count - before;

    const counts = countsOf(parts);
    expect(counts).toEqual([...counts].sort((a, b) => b - a)); // largest first
    expect(sum(counts)).toBe(total);
    // what the plan says each piece holds is what the API counts for it
    expect(await Promise.all(parts.map((p) => fx!.client.count('companies', p.filter)))).toEqual(counts);
    // a piece above the target is a single headcount value (it cannot be cut by headcount)
    for (const p of parts) if (p.count > pieceRecords) expect(p.headcount.gte).toBe(p.headcount.lte);
    expect(parts.length).toBeGreaterThanOrEqual(Math.ceil(total / pieceRecords));
    expect(tailShare(counts, journeys)).toBeLessThanOrEqual(0.03);
    // counts: within the budget, the free total was reused, and no search was spent planning
    expect(spent).toBeLessThanOrEqual(250);
    expect(spent).toBeGreaterThan(0);
    expect(fx.emu.stats('demo').operations.search).toBe(0);
    // fewer, larger pieces, as the whole-filter groups of old, would leave a long tail for the same journeys
    expect(tailShare(countsOf(await fx.client.partition('companies', filter, { parallelism: journeys })), journeys)).toBeGreaterThan(tailShare(counts, journeys));
  });

  it('spends no more counts than allowed: the largest pieces are cut first', async () => {
    fx = await sourceFixture({ companies: 30_000, persons: 1000, ...account });
    const filter = { company: { headcount: { gte: 1 } } };
    const total = await fx.client.count('companies', filter);
    const before = fx.client.stats().requests.count;
    const parts = await fx.client.partition('companies', filter, { pieceRecords: 100, total, maxCounts: 12 });
    expect(fx.client.stats().requests.count - before).toBeLessThanOrEqual(12);
    expect(sum(countsOf(parts))).toBe(total);
    expect(parts.length).toBeGreaterThan(2);
    // a filter small enough for one piece costs no count at all when the total is known
    const small = await fx.client.partition('companies', filter, { pieceRecords: total, total, maxCounts: 12 });
    expect(small).toHaveLength(1);
    expect(small[0]!.filter).toEqual(filter);
  });

  it('partitions a persons search by its company filter too, walking to exactly the whole set', async () => {
    fx = await sourceFixture({ companies: 3000, persons: 8000, ...account });
    const filter = { company: { headcount: { gte: 2, lte: 50_000 } }, person: {} };
    const whole = ids(await walkAll(fx.client, 'persons', filter, { runId: 'whole' }));
    const total = await fx.client.count('persons', filter);
    expect(whole.length).toBe(total);
    const parts = await fx.client.partition('persons', filter, { pieceRecords: Math.ceil(total / 12), total, maxCounts: 100 });
    expect(parts.length).toBeGreaterThanOrEqual(8);
    expect(countsOf(parts)).toEqual([...countsOf(parts)].sort((a, b) => b - a));
    const seen: string[] = [];
    for (const [i, p] of parts.entries()) seen.push(...ids(await walkAll(fx.client, 'persons', p.filter, { runId: `part-${i}` })));
    expect(seen.length).toBe(whole.length);
    expect(new Set(seen)).toEqual(new Set(whole));
  });
});
