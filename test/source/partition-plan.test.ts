/**
 * Many small partitions, largest first (PartitionOptions.pieceRecords): what the walk needs to keep its tail short
 * with journeys sized at run time. Real emulator, real Redis; the counts are checked against the emulator's own.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Filter, Partition, PartitionProgress } from '../../src/source/index.js';
import { Partitioner } from '../../src/source/partitioner.js';
import { ids, sourceFixture, walkAll, type SourceFixture } from './source-fixture.js';

let fx: SourceFixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

const account = {
  accounts: [
    {
      clientId: 'demo-client',
      clientSecret: 'demo-secret',
      accountId: 'demo',
      limits: { search: 100_000, count: 100_000, dictionary: 100_000 },
    },
  ],
};

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

/**
 * Share of the ideal pace a rate-bound walk keeps with these pieces: `journeys` walk them largest first, each at
 * most one page per tick, all together at most journeys / 1.25 pages per tick (the run's headroom); each piece's
 * last page is partial and costs a whole request. 1 means every tick used the allowance for full pages.
 */
function pace(counts: number[], journeys: number, pageSize = 100): number {
  const rate = journeys / 1.25;
  const queue = counts.map((c) => Math.ceil(c / pageSize)).sort((a, b) => b - a);
  let active: number[] = [];
  let ticks = 0;
  while (queue.length > 0 || active.length > 0) {
    while (active.length < journeys && queue.length > 0) active.push(queue.shift() as number);
    const each = Math.min(1, rate / active.length) / 100;
    active = active.map((p) => p - each).filter((p) => p > 1e-9);
    ticks += 0.01;
  }
  return sum(counts) / pageSize / rate / ticks;
}

describe('the partition plan for a walk sized at run time', () => {
  it(
    'plans small pieces largest first, covering the filter exactly, with a tail under ~3% for the journeys it was ' +
      'sized for',
    async () => {
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
      // fewer, larger pieces (one per journey) would leave a long tail for the same journeys
      expect(
        tailShare(
          countsOf(
            await fx.client.partition('companies', filter, { pieceRecords: Math.ceil(total / journeys), total }),
          ),
          journeys,
        ),
      ).toBeGreaterThan(tailShare(counts, journeys));
    },
  );

  it(
    'guided sizes: large pieces first, each no larger than what the other journeys walk after it; fewer partial ' +
      'pages, a pace as good',
    async () => {
      fx = await sourceFixture({ companies: 60_000, persons: 1000, ...account });
      const filter = { company: { headcount: { gte: 1 } } };
      const total = await fx.client.count('companies', filter);
      const journeys = 3;
      const pieceRecords = 100 * journeys; // the rule of jobs/sync-search/plan-run.ts: about a page per journey
      const parts = await fx.client.partition('companies', filter, { pieceRecords, journeys, total, maxCounts: 250 });
      const counts = countsOf(parts);
      expect(counts).toEqual([...counts].sort((a, b) => b - a));
      expect(sum(counts)).toBe(total);
      expect(await Promise.all(parts.map((p) => fx!.client.count('companies', p.filter)))).toEqual(counts);
      // the rule: a piece is small, one headcount value, or no larger than the records after it / journeys
      let after = total;
      for (const p of parts) {
        after -= p.count;
        if (p.count > pieceRecords && p.headcount.gte !== p.headcount.lte)
          expect(p.count).toBeLessThanOrEqual(after / journeys);
      }
      // against uniform small pieces (the former rule: 12% of the run per journey): fewer partitions, so fewer
      // partial pages, and the rate-bound walk keeps at least the same pace
      const uniform = countsOf(
        await fx.client.partition('companies', filter, {
          pieceRecords: Math.floor((0.12 * total) / journeys),
          total,
          maxCounts: 250,
        }),
      );
      expect(parts.length).toBeLessThan(uniform.length);
      expect(pace(counts, journeys)).toBeGreaterThanOrEqual(pace(uniform, journeys));
      expect(pace(counts, journeys)).toBeGreaterThan(0.97);
    },
  );

  it(
    'guided sizes for many journeys: one headcount value above its size is cut by country, and the pieces still ' +
      'walk to exactly the whole set',
    async () => {
      fx = await sourceFixture({ companies: 12_000, persons: 1000, ...account });
      const filter = { company: { headcount: { gte: 1 } } };
      const total = await fx.client.count('companies', filter);
      const journeys = 30;
      const parts = await fx.client.partition('companies', filter, {
        pieceRecords: 100,
        journeys,
        total,
        maxCounts: 2000,
      });
      const counts = countsOf(parts);
      expect(counts).toEqual([...counts].sort((a, b) => b - a));
      expect(sum(counts)).toBe(total);
      expect(await Promise.all(parts.map((p) => fx!.client.count('companies', p.filter)))).toEqual(counts);
      // headcount 1 alone is ~6% of this index (log-uniform headcounts): far above what 30 journeys walk after it
      const byCountry = parts.filter((p) => p.countries !== undefined);
      expect(new Set(byCountry.map((p) => p.headcount.gte)).has(1)).toBe(true);
      for (const p of byCountry) expect(p.headcount.gte).toBe(p.headcount.lte);
      // the rule now holds for single values too, but for one that is one country alone
      let after = total;
      for (const p of parts) {
        after -= p.count;
        if (p.count > Math.max(100, Math.floor(after / journeys))) expect(p.countries).toHaveLength(1);
      }
      const whole = ids(await walkAll(fx.client, 'companies', filter, { runId: 'whole' }));
      const seen: string[] = [];
      for (const [i, p] of parts.entries())
        seen.push(...ids(await walkAll(fx.client, 'companies', p.filter, { runId: `part-${i}` })));
      expect(seen.length).toBe(whole.length);
      expect(new Set(seen)).toEqual(new Set(whole));
    },
  );

  it(
    'a single headcount value whose country groups do not cover it stays whole (records without a listed country ' +
      'are never lost)',
    async () => {
      // An index where headcount 1 holds 600 companies, 150 of them without a country: no country cut may be kept.
      const records = Array.from({ length: 1200 }, (_, i) => ({
        headcount: i < 600 ? 1 : 2 + (i % 300),
        country: i < 150 ? null : (['US', 'DE', 'FR'][i % 3] as string),
      }));
      const matches = (f: Filter, r: (typeof records)[number]): boolean => {
        const company = f.company as {
          headcount: { gte: number; lte?: number };
          location?: { country: { include: string[] } };
        };
        const inRange =
          r.headcount >= company.headcount.gte &&
          (company.headcount.lte === undefined || r.headcount <= company.headcount.lte);
        return (
          inRange && (!company.location || (r.country !== null && company.location.country.include.includes(r.country)))
        );
      };
      const partitioner = (): Partitioner =>
        new Partitioner({
          count: async (f) => records.filter((r) => matches(f, r)).length,
          dictionary: async () => ['US', 'DE', 'FR'],
        });
      const filter = { company: { headcount: { gte: 1 } } };
      const parts = await partitioner().partition(filter, {
        pieceRecords: 50,
        journeys: 10,
        total: records.length,
        maxCounts: 500,
      });
      expect(sum(countsOf(parts))).toBe(records.length);
      expect(parts.some((p) => p.countries !== undefined)).toBe(false);
      expect(parts.filter((p) => p.headcount.gte === 1 && p.headcount.lte === 1).map((p) => p.count)).toEqual([600]);
      // with every company of headcount 1 in a listed country, the same value is cut by country
      for (const r of records) r.country ??= 'US';
      const cut = await partitioner().partition(filter, {
        pieceRecords: 50,
        journeys: 10,
        total: records.length,
        maxCounts: 500,
      });
      expect(sum(countsOf(cut))).toBe(records.length);
      expect(cut.filter((p) => p.headcount.gte === 1 && p.headcount.lte === 1).length).toBeGreaterThan(1);
    },
  );

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
    const parts = await fx.client.partition('persons', filter, {
      pieceRecords: Math.ceil(total / 12),
      total,
      maxCounts: 100,
    });
    expect(parts.length).toBeGreaterThanOrEqual(8);
    expect(countsOf(parts)).toEqual([...countsOf(parts)].sort((a, b) => b - a));
    const seen: string[] = [];
    for (const [i, p] of parts.entries())
      seen.push(...ids(await walkAll(fx.client, 'persons', p.filter, { runId: `part-${i}` })));
    expect(seen.length).toBe(whole.length);
    expect(new Set(seen)).toEqual(new Set(whole));
  });

  it(
    'tells settled partitions before the last round of counts, and a split cut short goes on from its pending ' +
      'pieces to the same plan',
    async () => {
      fx = await sourceFixture({ companies: 60_000, persons: 1000, ...account });
      const filter = { company: { headcount: { gte: 1 } } };
      const total = await fx.client.count('companies', filter);
      const journeys = 3;
      const options = { pieceRecords: 100 * journeys, journeys, total, maxCounts: 250 };
      const progress: PartitionProgress[] = [];
      const before = fx.client.stats().requests.count;
      const whole = await fx.client.partition('companies', filter, {
        ...options,
        onProgress: (p) => progress.push(structuredClone(p)),
      });
      const spent = fx.client.stats().requests.count - before;
      // every partition is told once, the last progress has nothing pending, and some came before the last round
      const told = progress.flatMap((p) => p.settled);
      expect(countsOf(told).sort((a, b) => b - a)).toEqual(countsOf(whole));
      expect(progress.at(-1)!.pending).toEqual([]);
      expect(progress.length).toBeGreaterThan(2);
      expect(progress[1]!.settled.length).toBeGreaterThan(0);
      // at every step the settled partitions and the pending pieces cover the filter exactly
      let settled = 0;
      for (const p of progress) {
        settled += sum(countsOf(p.settled));
        expect(settled + sum(p.pending.map((x) => x.count))).toBe(total);
      }

      // cut short after its second round: the rest is split from the pending pieces with the counts left
      const cut = 2;
      const earlier = progress.slice(0, cut).flatMap((p) => p.settled);
      const { pending, countsLeft } = progress[cut - 1]!;
      expect(pending.length).toBeGreaterThan(0);
      const beforeResume = fx.client.stats().requests.count;
      const rest = await fx.client.partition('companies', filter, {
        ...options,
        maxCounts: countsLeft,
        resume: { pending, settledCounts: countsOf(earlier) },
      });
      const resumeSpent = fx.client.stats().requests.count - beforeResume;
      expect(resumeSpent).toBeLessThanOrEqual(countsLeft);
      expect(resumeSpent).toBeLessThan(spent);
      const resumed = [...earlier, ...rest];
      expect(sum(countsOf(resumed))).toBe(total);
      expect(await Promise.all(rest.map((p) => fx!.client.count('companies', p.filter)))).toEqual(countsOf(rest));
      // the same partitions as the split that was not cut short
      const key = (p: Partition): string => JSON.stringify(p.filter);
      expect(resumed.map(key).sort()).toEqual(whole.map(key).sort());
    },
  );

  it(
    'many journeys: the first round of counts gives every journey a partition, and leaves half the budget for ' +
      'later rounds',
    async () => {
      fx = await sourceFixture({ companies: 60_000, persons: 1000, ...account });
      const filter = { company: { headcount: { gte: 1 } } };
      const total = await fx.client.count('companies', filter);
      // 19 journeys and the count budget of a 2,000 searches/min package (half its 333 counts per 10 s)
      const journeys = 19;
      const maxCounts = 166;
      const pieceRecords = Math.max(200, Math.min(100 * journeys, Math.floor(total / (8 * journeys)))); // plan-run.ts
      const progress: PartitionProgress[] = [];
      const parts = await fx.client.partition('companies', filter, {
        pieceRecords,
        journeys,
        total,
        maxCounts,
        onProgress: (p) => progress.push(structuredClone(p)),
      });
      // progress[0] comes before the first round's counts, progress[1] after them: by then a partition per journey
      // (with the former 32 ranges none was settled yet, and the walk waited for a second round)
      expect(progress[1]!.settled.length).toBeGreaterThanOrEqual(journeys);
      expect(maxCounts - progress[1]!.countsLeft).toBeLessThanOrEqual(maxCounts / 2);
      expect(sum(countsOf(parts))).toBe(total);
      expect(await Promise.all(parts.map((p) => fx!.client.count('companies', p.filter)))).toEqual(countsOf(parts));
    },
  );
});
