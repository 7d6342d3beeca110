import { describe, expect, it } from 'vitest';
import { END_GAME_MAX_UNWRITTEN, endGameJourneys } from '../../jobs/sync-search/pacing/end-game.js';
import { sizeJourneys, type SizingInput } from '../../jobs/sync-search/pacing/size-journeys.js';
import {
  firstJourneyCap,
  growJourneys,
  SLOW_START_JOURNEYS,
  type GrowthInput,
} from '../../jobs/sync-search/pacing/slow-start.js';
import { MovingPercentile } from '../../src/source/search-timings.js';

const base: SizingInput = {
  limit: 500,
  windowMs: 60_000,
  activeRuns: 1,
  fetchMs: 225,
  writeMs: 0,
  max: 256,
  headroom: 1.25,
};

describe("sizeJourneys (Little's law: rate x time per page x headroom)", () => {
  it('sizes from the limit per window and the page latency', () => {
    // A whole-second window's grants go out in all of it but the second its Reset's rounding may hold back:
    // 500 / 59 s = 8.47 pages/s x 0.225 s x 1.25 = 2.38 -> 3
    expect(sizeJourneys(base)).toBe(3);
    // the same package at 800 ms needs more journeys in flight: 8.47 x 0.8 x 1.25 = 8.47 -> 9
    expect(sizeJourneys({ ...base, fetchMs: 800 })).toBe(9);
    // 10,000 / min at 800 ms: 169.5 x 0.8 x 1.25 = 169.5 -> 170
    expect(sizeJourneys({ ...base, limit: 10_000, fetchMs: 800 })).toBe(170);
    // a shorter window at the same rate loses a larger share to that second: 1,667 / 9 s x 0.8 x 1.25 = 185.2 -> 186
    expect(sizeJourneys({ ...base, limit: 1667, windowMs: 10_000, fetchMs: 800 })).toBe(186);
    // windows of fractional seconds (Reset with decimals) lose a millisecond: 100 / 0.499 s x 0.05 x 1.25 = 12.5 -> 13
    expect(sizeJourneys({ ...base, limit: 100, windowMs: 500, fetchMs: 50 })).toBe(13);
  });

  it('splits the allowance between the runs on the account', () => {
    const alone = sizeJourneys({ ...base, limit: 2000, fetchMs: 225 });
    const shared = sizeJourneys({ ...base, limit: 2000, fetchMs: 225, activeRuns: 2 });
    expect(alone).toBe(10); // 33.9 x 0.225 x 1.25 = 9.5
    expect(shared).toBe(5); // 16.9 x 0.225 x 1.25 = 4.8
    expect(sizeJourneys({ ...base, limit: 2000, activeRuns: 0 })).toBe(alone); // never divides by zero
  });

  it('takes the slower of page latency and write time per page', () => {
    expect(sizeJourneys({ ...base, limit: 2000, fetchMs: 50, writeMs: 225 })).toBe(
      sizeJourneys({ ...base, limit: 2000, fetchMs: 225 }),
    );
  });

  it('sizes for the pace of a stage that queues (the CRM), never above the share', () => {
    // HubSpot at 19 pages/s, pages at 225 ms: 19 x 0.225 x 1.25 = 5.3 -> 6, although the source allows 42
    expect(sizeJourneys({ ...base, limit: 2000, windowMs: 10_000, queuedPagesPerSecond: 19 })).toBe(6);
    expect(sizeJourneys({ ...base, limit: 2000, windowMs: 10_000 })).toBe(63); // 2,000 / 9 s x 0.225 x 1.25 = 62.5
    // a queueing pace above the share does not raise it
    expect(sizeJourneys({ ...base, queuedPagesPerSecond: 1000 })).toBe(3);
    expect(sizeJourneys({ ...base, queuedPagesPerSecond: null })).toBe(3);
  });

  it("never sizes above the destination's configured ceiling, known before any write", () => {
    // HubSpot at 190 requests / 10 s of 100 records: 19 pages/s, sized at twice that so the CRM never waits for
    // pages; pages at 225 ms: 38 x 0.225 x 1.25 = 10.7 -> 11 (the source alone would allow 169 pages/s: 48)
    expect(sizeJourneys({ ...base, limit: 10_000, windowMs: 60_000, ceilingPagesPerSecond: 19 })).toBe(11);
    expect(sizeJourneys({ ...base, limit: 10_000, windowMs: 60_000 })).toBe(48);
    // a measured queueing pace below it binds; a ceiling above the share changes nothing
    expect(
      sizeJourneys({ ...base, limit: 10_000, windowMs: 60_000, ceilingPagesPerSecond: 19, queuedPagesPerSecond: 10 }),
    ).toBe(3);
    expect(sizeJourneys({ ...base, ceilingPagesPerSecond: 1000 })).toBe(sizeJourneys(base));
    expect(sizeJourneys({ ...base, ceilingPagesPerSecond: null })).toBe(sizeJourneys(base));
  });

  it('stays between 1 and the configured bound', () => {
    expect(sizeJourneys({ ...base, limit: 10_000, fetchMs: 800, max: 64 })).toBe(64);
    expect(sizeJourneys({ ...base, limit: 1, fetchMs: 1 })).toBe(1);
    expect(sizeJourneys({ ...base, limit: 0 })).toBe(1);
    expect(sizeJourneys({ ...base, max: 0 })).toBe(1);
  });
});

describe('MovingPercentile', () => {
  it('reads a percentile of the last N samples only', () => {
    const p = new MovingPercentile(10);
    expect(p.at(0.9)).toBeNull();
    for (let i = 1; i <= 10; i++) p.add(i * 10);
    expect(p.at(0.9)).toBe(90);
    expect(p.at(0.1)).toBe(10);
    // ten new samples push the old ones out: latency rose, the p90 follows
    for (let i = 1; i <= 10; i++) p.add(1000 + i);
    expect(p.at(0.1)).toBe(1001);
    expect(p.count).toBe(10);
  });
});

describe('growJourneys (slow start: the cap on journeys per step)', () => {
  const step: GrowthInput = {
    cap: SLOW_START_JOURNEYS,
    demand: 200,
    max: 256,
    crmBinds: false,
    stepWriteMs: 30,
    fetchMs: 225,
    quickWriteMs: 20,
  };

  it('doubles while the writes keep up, up to the bound, and not beyond what the sizing asks for', () => {
    let cap = SLOW_START_JOURNEYS;
    const caps: number[] = [];
    for (let i = 0; i < 8; i++) caps.push((cap = growJourneys({ ...step, cap })));
    expect(caps).toEqual([8, 16, 32, 64, 128, 256, 256, 256]);
    // the sizing asks for no more than the cap: no growth (the figure in use is the demand)
    expect(growJourneys({ ...step, cap: 16, demand: 12 })).toBe(16);
    expect(growJourneys({ ...step, cap: 16, max: 20 })).toBe(20);
  });

  it("holds when the step's writes waited, or when no write was timed", () => {
    // 600 ms a page (the step's p90): above the page latency and twice the quick writes (a governor made them wait)
    expect(growJourneys({ ...step, cap: 16, stepWriteMs: 600 })).toBe(16);
    expect(growJourneys({ ...step, cap: 16, stepWriteMs: null })).toBe(16);
    // slow CRM but within the page latency: a journey's pace is still the page's, growing still helps
    expect(growJourneys({ ...step, cap: 16, stepWriteMs: 200, quickWriteMs: 150 })).toBe(32);
  });

  it("falls to the CRM's pace when the CRM binds, and never below one", () => {
    expect(growJourneys({ ...step, cap: 64, crmBinds: true, demand: 6 })).toBe(6);
    expect(growJourneys({ ...step, cap: 4, crmBinds: true, demand: 6 })).toBe(4);
    expect(growJourneys({ ...step, cap: 4, crmBinds: true, demand: 0 })).toBe(1);
  });

  it('once the CRM has bound, grows by a quarter per step (at least one), not by doubling', () => {
    expect(growJourneys({ ...step, cap: 7, boundBefore: true })).toBe(8);
    expect(growJourneys({ ...step, cap: 16, boundBefore: true })).toBe(20);
    expect(growJourneys({ ...step, cap: 16, boundBefore: true, stepWriteMs: 600 })).toBe(16);
  });
});

describe('firstJourneyCap (where the slow start begins)', () => {
  it('4 without a known destination ceiling', () => {
    expect(firstJourneyCap({ ceilingPagesPerSecond: null, fetchMs: 800, demand: 41 })).toBe(SLOW_START_JOURNEYS);
  });

  it(
    "with a ceiling: the journeys that keep it busy at the count's latency, never above the sizing's figure, " +
      'never below 4',
    () => {
      // HubSpot at 190 requests / 10 s = 19 pages/s; at 800 ms a page: 19 x 0.8 x 1.25 = 19 journeys (was 4, then 8,
      // 16,
      // 32)
      expect(firstJourneyCap({ ceilingPagesPerSecond: 19, fetchMs: 800, demand: 41 })).toBe(19);
      // the source asks for fewer (a small package): that figure
      expect(firstJourneyCap({ ceilingPagesPerSecond: 19, fetchMs: 800, demand: 10 })).toBe(10);
      // a quick API: the ceiling needs fewer than 4 in flight; the slow start's 4 stays the floor
      expect(firstJourneyCap({ ceilingPagesPerSecond: 19, fetchMs: 50, demand: 41 })).toBe(SLOW_START_JOURNEYS);
      // no latency known
      expect(firstJourneyCap({ ceilingPagesPerSecond: 19, fetchMs: 0, demand: 41 })).toBe(SLOW_START_JOURNEYS);
    },
  );
});

describe("endGameJourneys (the run's last window)", () => {
  // 83 searches per 10 s: a window's grants go out in its first 9 s (the Reset rounding allowance), 9.2 pages/s
  const rate = { limit: 83, windowMs: 10_000, activeRuns: 1, recordsPerJourney: 900 };

  it('0 while the searches left need more than one window, every partition left once they fit in one', () => {
    expect(endGameJourneys({ ...rate, remainingPages: 84, partitionsLeft: 6 })).toBe(0);
    expect(endGameJourneys({ ...rate, remainingPages: 83, partitionsLeft: 6 })).toBe(6);
    expect(endGameJourneys({ ...rate, remainingPages: 12, partitionsLeft: 3 })).toBe(3);
  });

  it("with other runs on the account, only this run's share of a window counts", () => {
    expect(endGameJourneys({ ...rate, activeRuns: 2, remainingPages: 50, partitionsLeft: 6 })).toBe(0);
    expect(endGameJourneys({ ...rate, activeRuns: 2, remainingPages: 41, partitionsLeft: 6 })).toBe(6);
  });

  it("not when the destination's ceiling binds before the API (the journeys would only wait for the CRM)", () => {
    // HubSpot at 190 / 10 s takes 19 pages/s: above the API's 9.2, the end game applies
    expect(endGameJourneys({ ...rate, ceilingPagesPerSecond: 19, remainingPages: 40, partitionsLeft: 6 })).toBe(6);
    // 2,000 searches per min (37 pages/s in a window's grantable part) into the same portal: the CRM binds
    expect(
      endGameJourneys({
        limit: 2000,
        windowMs: 60_000,
        activeRuns: 1,
        ceilingPagesPerSecond: 19,
        remainingPages: 400,
        partitionsLeft: 30,
        recordsPerJourney: 200,
      }),
    ).toBe(0);
  });

  it(
    'never more journeys than hold END_GAME_MAX_UNWRITTEN records between them (a fast package into Bulk API ' + '2.0)',
    () => {
      // 10,000 searches per min into Salesforce (no ceiling), batches of 10,000 records + a page: 9 journeys, not 150
      const fast = { limit: 10_000, windowMs: 60_000, activeRuns: 1, remainingPages: 8_000, partitionsLeft: 150 };
      expect(endGameJourneys({ ...fast, recordsPerJourney: 10_100 })).toBe(Math.floor(END_GAME_MAX_UNWRITTEN / 10_100));
      expect(endGameJourneys({ ...fast, recordsPerJourney: 10_100 })).toBe(9);
      expect(endGameJourneys({ ...fast, recordsPerJourney: 200 })).toBe(150);
    },
  );

  it('nothing to spread with one partition left, or without a known rate', () => {
    expect(endGameJourneys({ ...rate, remainingPages: 5, partitionsLeft: 1 })).toBe(0);
    expect(endGameJourneys({ ...rate, limit: 0, remainingPages: 5, partitionsLeft: 4 })).toBe(0);
  });
});
