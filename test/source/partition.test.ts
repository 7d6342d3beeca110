import { afterEach, describe, expect, it } from 'vitest';
import { PaginationDepthError, PartitionError, type Partition } from '../../src/source/index.js';
import { ids, sourceFixture, walkAll, type SourceFixture } from './source-fixture.js';

let fx: SourceFixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

const fast = { limits: { search: 100_000, count: 100_000, dictionary: 100_000 } };
const account = (extra = {}) => ({
  accounts: [{ clientId: 'demo-client', clientSecret: 'demo-secret', accountId: 'demo', ...fast, ...extra }],
});

async function recount(
  fx: SourceFixture,
  parts: Partition[],
  entity: 'companies' | 'persons' = 'companies',
): Promise<number[]> {
  return Promise.all(parts.map((p) => fx.client.count(entity, p.filter)));
}

describe('partitioning by free counts', () => {
  it('splits ~350,000 matches into journeys of at most the piece size, under the depth, counting only', async () => {
    fx = await sourceFixture({ companies: 360_000, persons: 1000, ...account() });
    const filter = { company: { headcount: { gte: 2 } } };
    const total = await fx.client.count('companies', filter);
    expect(total).toBeGreaterThan(330_000);
    const pieceRecords = Math.ceil(total / 6);
    const parts = await fx.client.partition('companies', filter, { pieceRecords });
    expect(parts.length).toBeGreaterThanOrEqual(6);
    const counts = await recount(fx, parts);
    expect(counts).toEqual(parts.map((p) => p.count));
    expect(counts.reduce((a, b) => a + b, 0)).toBe(total);
    // within the piece size, except one headcount value (never cut by headcount), and always under the depth
    for (const p of parts) if (p.count > pieceRecords) expect(p.headcount.gte).toBe(p.headcount.lte);
    for (const c of counts) expect(c).toBeLessThanOrEqual(90_000);
    // Ranges are adjacent and start at the filter's own bound.
    const byRange = [...parts].sort((a, b) => a.headcount.gte - b.headcount.gte);
    expect(byRange[0]!.headcount.gte).toBe(2);
    for (let i = 1; i < byRange.length; i++) expect(byRange[i]!.headcount.gte).toBe(byRange[i - 1]!.headcount.lte + 1);
    expect(fx.emu.stats('demo').operations.search).toBe(0);
    expect(fx.client.stats().requests.count).toBeLessThan(120);
  });

  it('partitions walk to exactly the records of the whole filter, disjoint (persons, bounded filter)', async () => {
    fx = await sourceFixture({ companies: 3000, persons: 6000, ...account() });
    const filter = { company: { headcount: { gte: 3, lte: 20_000 } } };
    const whole = ids(await walkAll(fx.client, 'persons', filter, { runId: 'whole' }));
    const parts = await fx.client.partition('persons', filter, { maxJourneyRecords: 1500 });
    expect(parts.length).toBeGreaterThanOrEqual(Math.ceil(whole.length / 1500));
    const seen: string[] = [];
    for (const [i, p] of parts.entries())
      seen.push(...ids(await walkAll(fx.client, 'persons', p.filter, { runId: `part-${i}` })));
    expect(seen.length).toBe(whole.length);
    expect(new Set(seen)).toEqual(new Set(whole));
  });

  it('splits one headcount value that is still too deep by country, or reports it clearly', async () => {
    fx = await sourceFixture({ companies: 40_000, persons: 1000, ...account() });
    const filter = { company: { headcount: { lte: 3 } } };
    const ones = await fx.client.count('companies', { company: { headcount: { gte: 1, lte: 1 } } });
    expect(ones).toBeGreaterThan(1000);
    const parts = await fx.client.partition('companies', filter, { maxJourneyRecords: 1000 });
    const byCountry = parts.filter((p) => p.countries !== undefined);
    expect(byCountry.length).toBeGreaterThan(1);
    const counts = await recount(fx, parts);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(await fx.client.count('companies', filter));
    for (const c of counts) expect(c).toBeLessThanOrEqual(1000);
    await expect(fx.client.partition('companies', filter, { maxJourneyRecords: 20 })).rejects.toBeInstanceOf(
      PartitionError,
    );
  });

  it('a 422 mid-walk is split and the walk continues with nothing lost or doubled', async () => {
    // the API's depth (100,000) at a tenth of the scale: the same split, a tenth of the records to walk
    const depth = 10_000;
    fx = await sourceFixture({ companies: 10_400, persons: 1000, journeyDepth: depth, ...account() });
    const filter = { company: { headcount: { gte: 1 } } };
    const total = await fx.client.count('companies', filter);
    expect(total).toBeGreaterThan(depth);
    // Pretend planning said one journey is enough: the API stops it at its depth.
    const plan: Partition = { filter, count: total, headcount: { gte: 1, lte: 10_000_000 } };
    const out = new Set<string>();
    const queue = [plan];
    let depthErrors = 0;
    while (queue.length > 0) {
      const part = queue.shift()!;
      try {
        for await (const page of fx.client.journey('companies', part.filter, { runId: 'r' }))
          for (const id of ids(page.records)) out.add(id);
      } catch (error) {
        expect(error).toBeInstanceOf(PaginationDepthError);
        depthErrors++;
        queue.push(...(await fx.client.splitPartition('companies', part)));
      }
    }
    expect(depthErrors).toBe(1);
    expect(out.size).toBe(total);
    expect(fx.emu.stats('demo').served422).toBe(1);
  }, 60_000);
});
