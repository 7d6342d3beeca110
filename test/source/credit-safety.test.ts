import { afterEach, describe, expect, it } from 'vitest';
import { SourceAbortedError, type BudgetStopError } from '../../src/source/index.js';
import { sourceFixture, walkUntilStop, type SourceFixture } from './source-fixture.js';

let fx: SourceFixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const contacts = { view: ['contacts'] as string[] };
const headcounts = [{ lte: 20 }, { gte: 21, lte: 200 }, { gte: 201, lte: 2000 }, { gte: 2001 }];

describe('requests that got no answer are booked at their worst case', () => {
  it('an abort after the page was sent counts its credits and tokens although the answer never came', async () => {
    fx = await sourceFixture({}, { credits: { maxPerRun: 1000 } });
    const controller = new AbortController();
    const journey = fx.client.journey(
      'persons',
      {},
      { runId: 'r', ...contacts, pageSize: 100, signal: controller.signal },
    );
    const it1 = journey[Symbol.asyncIterator]();
    expect((await it1.next()).value?.returned).toBe(100);
    fx.emu.faults.set({ latency: { fixedMs: 300, jitterMs: 0 } });
    setTimeout(() => controller.abort(), 100);
    await expect(it1.next()).rejects.toBeInstanceOf(SourceAbortedError);
    await pause(400); // the API serves (and charges) the page anyway
    const emu = fx.emu.stats('demo');
    expect(emu.creditsCharged).toBe(200);
    expect((await fx.client.ledger.creditUsage('r')).run).toBe(200);
    expect((await fx.client.ledger.tokenBalance())?.remaining).toBeLessThanOrEqual(1_000_000_000 - emu.tokensCharged);
  });

  it('timed-out attempts and their retries never pass the run cap', async () => {
    fx = await sourceFixture({}, { credits: { maxPerRun: 250 }, requestTimeoutMs: 150 });
    fx.emu.faults.set({ latency: { fixedMs: 300, jitterMs: 0 } });
    const { error } = await walkUntilStop(fx.client, 'persons', {}, { runId: 'r', ...contacts, pageSize: 100 });
    expect((error as BudgetStopError).cap).toBe('credit_cap_run');
    await pause(400);
    expect(fx.emu.stats('demo').creditsCharged).toBeLessThanOrEqual(250);
    expect((await fx.client.ledger.creditUsage('r')).run).toBeGreaterThanOrEqual(fx.emu.stats('demo').creditsCharged);
  });
});

describe('credit caps with parallel journeys', () => {
  it('reports the per-run cap when in-flight pages of the run hold what is left of it', async () => {
    fx = await sourceFixture(
      { faults: { latency: { fixedMs: 100, jitterMs: 50 } } },
      { credits: { maxPerRun: 150, maxPerDay: 10_000 } },
    );
    const results = await Promise.all(
      headcounts.map((h) =>
        walkUntilStop(
          fx!.client,
          'persons',
          { company: { headcount: h } },
          { runId: 'par', ...contacts, pageSize: 100 },
        ),
      ),
    );
    const caps = results.map((r) => (r.error as BudgetStopError | undefined)?.cap);
    expect(caps.filter((c) => c !== undefined).length).toBeGreaterThan(0);
    for (const cap of caps) if (cap !== undefined) expect(cap).toBe('credit_cap_run');
    expect(fx.emu.stats('demo').creditsCharged).toBe(150);
  });

  it('four parallel journeys never pass a run cap of 250 (the emulator’s own count)', async () => {
    fx = await sourceFixture({ faults: { latency: { fixedMs: 20, jitterMs: 60 } } }, { credits: { maxPerRun: 250 } });
    const results = await Promise.all(
      headcounts.map((h) =>
        walkUntilStop(
          fx!.client,
          'persons',
          { company: { headcount: h } },
          { runId: 'cap', ...contacts, pageSize: 40 },
        ),
      ),
    );
    const charged = fx.emu.stats('demo').creditsCharged;
    expect(charged).toBeLessThanOrEqual(250);
    expect(charged).toBeGreaterThanOrEqual(200);
    expect(results.reduce((a, r) => a + r.returned, 0)).toBe(charged);
    expect((await fx.client.ledger.creditUsage('cap')).run).toBe(charged);
  });

  it(
    'a run cap equal to what the partitions hold lets every journey finish: pages in flight are waited for, not a ' +
      'stop',
    async () => {
      // 1,000 persons split over four partitions; each partition's last page reserves 100 credits but returns fewer.
      fx = await sourceFixture(
        { companies: 1000, persons: 1000, faults: { latency: { fixedMs: 30, jitterMs: 40 } } },
        { credits: { maxPerRun: 1000 } },
      );
      const results = await Promise.all(
        headcounts.map((h) =>
          walkUntilStop(
            fx!.client,
            'persons',
            { company: { headcount: h } },
            { runId: 'exact', ...contacts, pageSize: 100 },
          ),
        ),
      );
      expect(results.map((r) => r.error)).toEqual([undefined, undefined, undefined, undefined]);
      expect(results.reduce((a, r) => a + r.returned, 0)).toBe(1000);
      expect(fx.emu.stats('demo').creditsCharged).toBe(1000);
    },
  );
});
