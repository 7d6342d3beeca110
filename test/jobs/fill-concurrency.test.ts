/**
 * Journeys sized at run time (jobs/sync-search/concurrency.ts): two runs on one account split its allowance, a
 * slow CRM bounds what is fetched but not yet written, and a resumed run spends no count on its partitions.
 * Real emulators (HubSpot driven by the real client), real Redis; assertions on counts and states, not durations.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { syncSearch } from '../../jobs/sync-search.js';
import { JourneyController, type ControllerDeps } from '../../jobs/sync-search/pacing/journey-controller.js';
import { openSource } from '../../jobs/sync-search/open-source.js';
import { planRun, startPlan } from '../../jobs/sync-search/plan-run.js';
import { resolveSearch } from '../../jobs/sync-search/resolve-search.js';
import type { RunPlan } from '../../jobs/sync-search/plan-run.js';
import type { WalkStats } from '../../jobs/sync-search/walk-context.js';
import { startHubSpotEmulator, type HubSpotEmulator } from '../../src/emulators/hubspot/index.js';
import { parseConfig } from '../../src/config/index.js';
import { silentLogger } from '../../src/shared/logger.js';
import type { SourceClient } from '../../src/source/index.js';
import { sizeJourneys } from '../../jobs/sync-search/pacing/size-journeys.js';
import {
  COMPANY_FILTER,
  COMPANY_SEARCH,
  HUBSPOT_TOKEN,
  hubspotConfig,
  hubspotValues,
  startFixture,
  type Fixture,
} from './sync-fixture.js';

let fx: Fixture | undefined;
let slowHubSpot: HubSpotEmulator | undefined;
const clients: SourceClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await slowHubSpot?.close();
  slowHubSpot = undefined;
  await fx?.close();
  fx = undefined;
});

/** A few pages through `source` so its latency window has samples and the account's limit is learned. */
/**
 * A controller over a package whose Little's-law figure is the bound (256), pages at 40 ms, a warmed source and a
 * clock the test steps (no test waits on time).
 */
async function steppedController(
  name: string,
  now: () => number,
  extra: Partial<ControllerDeps> = {},
): Promise<JourneyController> {
  fx = await startFixture(name, {
    account: { limits: { search: 600_000, count: 600_000, dictionary: 600_000 } },
    salesIntel: { companies: 400, faults: { latency: { fixedMs: 40, jitterMs: 0 } } },
  });
  const config = fx.config(hubspotConfig(COMPANY_SEARCH));
  const source = openSource(config, fx.redis, fx.prefix, silentLogger);
  clients.push(source);
  await warm(source, `warm-${name}`);
  return new JourneyController({ source, config, pageSize: 100, initial: 256, max: 256, now, ...extra });
}

async function warm(source: SourceClient, runId: string): Promise<void> {
  let pages = 0;
  for await (const _page of source.journey('companies', COMPANY_FILTER, { runId, pageSize: 10 }))
    if (++pages >= 5) break;
}

describe('journeys sized at run time', () => {
  it('two runs on one account split the allowance instead of each sizing for all of it', async () => {
    // 600 searches per 60 s: at the emulator's ~0 ms latency a run alone would still want several journeys only
    // through the floor, so the figures are compared through the sizing rule with the learned latency.
    fx = await startFixture('fill-share', {
      account: { limits: { search: 6000, count: 6000, dictionary: 6000 } },
      salesIntel: { companies: 400, faults: { latency: { fixedMs: 40, jitterMs: 0 } } },
    });
    const config = fx.config(hubspotConfig(COMPANY_SEARCH));
    const a = openSource(config, fx.redis, fx.prefix, silentLogger);
    const b = openSource(config, fx.redis, fx.prefix, silentLogger);
    clients.push(a, b);
    expect(a.accountKey).toBe(b.accountKey);
    await Promise.all([warm(a, 'warm-a'), warm(b, 'warm-b')]);
    const learned = await a.rateLimit('search');
    expect(learned).toMatchObject({ limit: 6000, mode: 'headers' });

    const controller = (source: SourceClient): JourneyController =>
      new JourneyController({ source, config, pageSize: 10, initial: 64, max: 256 });
    const runA = controller(a);
    await runA.start();
    // the sizing rule's figure (`demand`); the journeys in use start below it (slow start, tested further down)
    runA.target();
    const alone = runA.sizing()!.demand;
    expect(runA.sizing()!.journeys).toBe(Math.min(alone, runA.sizing()!.cap));
    expect(runA.sizing()).toMatchObject({ activeRuns: 1, limit: 6000 });
    const latency = runA.sizing()!.fetchP90Ms;
    expect(alone).toBe(
      sizeJourneys({ limit: 6000, windowMs: learned!.windowMs, activeRuns: 1, fetchMs: latency, writeMs: 0, max: 256 }),
    );

    const runB = controller(b);
    await runB.start();
    await runA.refresh();
    runA.target();
    runB.target();
    const [shareA, shareB] = [runA.sizing()!.demand, runB.sizing()!.demand];
    expect(runA.sizing()!.activeRuns).toBe(2);
    expect(runB.sizing()!.activeRuns).toBe(2);
    expect(shareA).toBe(
      sizeJourneys({
        limit: 6000,
        windowMs: learned!.windowMs,
        activeRuns: 2,
        fetchMs: runA.sizing()!.fetchP90Ms,
        writeMs: 0,
        max: 256,
      }),
    );
    expect(shareA).toBeLessThan(alone);
    expect(shareB).toBeLessThan(alone + 1);

    // B ends: A sizes for the whole allowance again at its next beat.
    await runB.stop();
    await runA.refresh();
    runA.target();
    expect(runA.sizing()!.activeRuns).toBe(1);
    await runA.stop();
  });

  it(
    "slow start: journeys double per step while writes keep up, hold when they wait, fall to the CRM's pace once " +
      'it binds',
    async () => {
      // A package whose Little's-law figure is the bound (256): the run still starts at 4 and grows on evidence.
      let now = 0; // the controller's clock, stepped by the test (no test waits on time)
      const run = await steppedController('fill-slow-start', () => now);
      await run.start();
      const resize = async (): Promise<number> => {
        await run.refresh();
        return run.target();
      };
      const writes = (n: number, msPerPage: number): void => {
        for (let i = 0; i < n; i++) run.writeTimed(100, msPerPage);
      };
      expect(await resize()).toBe(4);
      expect(run.sizing()).toMatchObject({ demand: 256, cap: 4 });

      // quick writes (10 ms a page), one step a second: 4 -> 8 -> 16 -> 32
      const grown: number[] = [];
      for (let i = 0; i < 3; i++) {
        writes(8, 10);
        now += 1_000;
        grown.push(await resize());
      }
      expect(grown).toEqual([8, 16, 32]);
      // a second without enough writes to judge: no step
      writes(3, 10);
      now += 1_000;
      expect(await resize()).toBe(32);
      // the step's writes waited (2 s a page, far above the 40 ms page latency): the cap holds
      writes(10, 2_000);
      now += 1_000;
      expect(await resize()).toBe(32);
      expect(run.sizing()!.writesQueue).toBe(false);

      // The CRM binds (most writes wait) but its pace is not trusted before 10 s: hold, no jump to the source's figure.
      writes(40, 2_000);
      now += 200;
      expect(await resize()).toBe(32);
      expect(run.sizing()).toMatchObject({ writesQueue: true, queuedPagesPerSecond: null });
      // Past 10 s the written pace is known: journeys fall to what it needs, and the cap with them (growth restarts
      // there).
      now = 12_000;
      const journeys = await resize();
      const sizing = run.sizing()!;
      expect(sizing.queuedPagesPerSecond).toBeCloseTo(77 / 12, 5);
      expect(journeys).toBe(
        sizeJourneys({
          limit: sizing.limit,
          windowMs: sizing.windowMs,
          activeRuns: 1,
          fetchMs: sizing.fetchP90Ms,
          writeMs: sizing.writeP10Ms,
          queuedPagesPerSecond: sizing.queuedPagesPerSecond,
          max: 256,
        }),
      );
      expect(journeys).toBeLessThan(32);
      expect(sizing.cap).toBe(journeys);
      expect(run.peak).toBe(32);
      // The CRM keeps up again (a whole window of quick writes): growth resumes, by a quarter per step, not doubling.
      writes(64, 10);
      now += 1_000;
      await resize();
      expect(run.sizing()).toMatchObject({ writesQueue: false, cap: journeys + Math.max(1, Math.floor(journeys / 4)) });
      await run.stop();
    },
  );

  it(
    "a destination's configured ceiling bounds the journeys from the first resize, before any write was " + 'timed',
    async () => {
      let now = 0;
      // 190 HubSpot requests / 10 s of 100 records: 19 pages/s
      const run = await steppedController('fill-ceiling', () => now, { crmRecordsPerSecond: 1_900 });
      await run.start();
      await run.refresh();
      const journeys = run.target();
      const sizing = run.sizing()!;
      expect(sizing.demand).toBe(
        sizeJourneys({
          limit: sizing.limit,
          windowMs: sizing.windowMs,
          activeRuns: 1,
          fetchMs: sizing.fetchP90Ms,
          writeMs: 0,
          max: 256,
          ceilingPagesPerSecond: 19,
        }),
      );
      expect(sizing.demand).toBeLessThan(
        sizeJourneys({
          limit: sizing.limit,
          windowMs: sizing.windowMs,
          activeRuns: 1,
          fetchMs: sizing.fetchP90Ms,
          writeMs: 0,
          max: 256,
        }),
      );
      // quick writes (the CRM's first window) grow the cap, never the journeys above the ceiling's figure
      for (let i = 0; i < 5; i++) {
        for (let w = 0; w < 8; w++) run.writeTimed(100, 10);
        now += 1_000;
        await run.refresh();
        expect(run.target()).toBeLessThanOrEqual(sizing.demand);
      }
      expect(journeys).toBeLessThanOrEqual(sizing.demand);
      await run.stop();
    },
  );

  it(
    "a destination's ceiling is read live: a CRM limit learned mid-run (the portal answered more, then less) " +
      're-sizes the journeys',
    async () => {
      let now = 0;
      // Before the portal's first answer: the lowest tier's 100 requests / 10 s (10 pages/s); then it answers far more,
      // then less again (far enough apart that the ceiling, not the page latency, decides the figure at any load).
      let crm = 1_000;
      const run = await steppedController('fill-live-ceiling', () => now, { crmRecordsPerSecond: () => crm });
      await run.start();
      await run.refresh();
      const demandFor = (pagesPerSecond: number): number => {
        const s = run.sizing()!;
        return sizeJourneys({
          limit: s.limit,
          windowMs: s.windowMs,
          activeRuns: 1,
          fetchMs: s.fetchP90Ms,
          writeMs: s.writeP10Ms,
          max: 256,
          ceilingPagesPerSecond: pagesPerSecond,
        });
      };
      run.target();
      const assumed = run.sizing()!.demand;
      expect(assumed).toBe(demandFor(10));
      for (const [learned, pages] of [
        [10_000, 100],
        [5_000, 50],
      ] as const) {
        crm = learned;
        now += 1_000;
        await run.refresh();
        run.target();
        expect(run.sizing()!.demand).toBe(demandFor(pages));
      }
      expect(demandFor(100)).toBeGreaterThan(demandFor(50));
      expect(demandFor(50)).toBeGreaterThan(assumed);
      await run.stop();
    },
  );

  it(
    "a destination's known ceiling sets where the slow start begins: the journeys it needs at the count's " + 'latency',
    async () => {
      const now = (): number => 0;
      fx = await startFixture('fill-first-cap', {
        account: { limits: { search: 600_000, count: 600_000, dictionary: 600_000 } },
        salesIntel: { companies: 400, faults: { latency: { fixedMs: 40, jitterMs: 0 } } },
      });
      const config = fx.config(hubspotConfig(COMPANY_SEARCH));
      const source = openSource(config, fx.redis, fx.prefix, silentLogger);
      clients.push(source);
      await warm(source, 'warm-first-cap');
      for (let i = 0; i < 3; i++) await source.count('companies', COMPANY_FILTER);
      const countMs = source.searchTimings().countLatencyP50Ms!;
      const deps: ControllerDeps = { source, config, pageSize: 100, initial: 256, max: 256, now };
      // 1,900 HubSpot requests / 10 s of 100 records: 190 pages/s, at ~40 ms a count
      const run = new JourneyController({ ...deps, crmRecordsPerSecond: 19_000 });
      await run.start();
      await run.refresh();
      const journeys = run.target();
      const expected = Math.ceil(190 * (countMs / 1000) * 1.25);
      expect(expected).toBeGreaterThan(4);
      expect(run.sizing()!.cap).toBe(expected);
      expect(journeys).toBe(Math.min(expected, run.sizing()!.demand));
      await run.stop();
      // without a ceiling the same run starts at 4
      const plain = new JourneyController(deps);
      await plain.start();
      await plain.refresh();
      expect(plain.target()).toBe(4);
      await plain.stop();
    },
  );

  it(
    "the run's last window: once every search left fits in one window of the allowance, every partition left " +
      'walks at once',
    { timeout: 60_000 },
    async () => {
      // 300 searches per 60 s at 40 ms a page: Little's law asks 1 journey (and the API binds before HubSpot's 100
      // requests per 10 s). 3,000 companies cut into partitions of at most 400 need ~40 searches, which one window
      // grants at once: so once the split is done, every partition left walks.
      fx = await startFixture('fill-end-game', {
        account: { limits: { search: 300, count: 300, dictionary: 300 } },
        salesIntel: { companies: 3000, faults: { latency: { fixedMs: 40, jitterMs: 0 } } },
      });
      const config = fx.config(
        hubspotConfig(COMPANY_SEARCH, '  pageSize: 100\n  parallelism: auto\n  maxJourneyRecords: 400'),
      );
      const expected = await fx.oracleIds('companies', COMPANY_FILTER);
      fx.si.resetStats();
      let walk: WalkStats | undefined;
      let plan: RunPlan | undefined;
      const summary = await syncSearch(fx.deps(config), {
        search: 'all-companies',
        runId: 'end-game',
        onWalk: (w) => {
          walk = w;
        },
        onPlan: (p) => {
          plan = p;
        },
      });
      expect(summary).toMatchObject({ status: 'completed', created: expected.length, throttled: 0 });
      expect(hubspotValues(fx.hubspot!, 'companies', 'prospect_sync_id')).toEqual(expected);
      expect(plan!.partitions.length).toBeGreaterThanOrEqual(8);
      // what the rate alone asks (and the slow start's first cap, 4) is far below the partitions
      expect(plan!.parallelism).toBeLessThanOrEqual(2);
      expect(walk!.peakJourneys).toBeGreaterThanOrEqual(6);
      expect(fx.si.stats('worker').served429.search).toBe(0);
    },
  );

  it('two whole runs on one account at once: every record once each, and no 429', async () => {
    fx = await startFixture('fill-two-runs', {
      account: { limits: { search: 40, count: 200, dictionary: 200 } },
      salesIntel: { companies: 400, windowSeconds: 1 },
    });
    const two =
      COMPANY_SEARCH +
      COMPANY_SEARCH.replace('name: all-companies', 'name: all-companies-2').replace(
        'field: prospect_sync_id',
        'field: prospect_sync_id_2',
      );
    const config = fx.config(
      hubspotConfig(
        two,
        '  pageSize: 20\n  fallbackLimits: {search: 40, count: 200, dictionary: 200, windowSeconds: 1}',
      ).replace(/\n {2}fallbackLimits: \{search: 500.*\n/, '\n'),
    );
    const expected = await fx.oracleIds('companies', COMPANY_FILTER);
    fx.si.resetStats();
    const [one, other] = await Promise.all([
      syncSearch(fx.deps(config), { search: 'all-companies', runId: 'share-1', dryRun: true }),
      syncSearch(fx.deps(config), { search: 'all-companies-2', runId: 'share-2', dryRun: true }),
    ]);
    for (const run of [one, other])
      expect(run).toMatchObject({ status: 'completed', unique: expected.length, throttled: 0 });
    expect(fx.si.stats('worker').served429.search).toBe(0);
  });

  it(
    'a slow CRM (HubSpot at a small limit) slows the walk instead of piling up fetched records',
    { timeout: 90_000 },
    async () => {
      fx = await startFixture('fill-slow-crm', {
        hubspot: false,
        salesIntel: { companies: 2000 },
        account: { limits: { search: 100_000, count: 100_000, dictionary: 100_000 } },
      });
      // HubSpot at 30 requests per 10 s (the sink is told the same) and 100 ms per request, journeys bounded at 3:
      // the source could hand over all 2,000 records at once, the CRM takes them over about two windows.
      slowHubSpot = await startHubSpotEmulator({
        port: 0,
        accessTokens: [HUBSPOT_TOKEN],
        limits: { perTenSeconds: 30 },
        faults: { latencyMs: 100 },
      });
      const yaml = hubspotConfig(COMPANY_SEARCH, '  pageSize: 50\n  parallelism: 3').replace(
        'baseUrl: ${HUBSPOT_BASE_URL}',
        'baseUrl: ${HUBSPOT_BASE_URL}\n    requestsPer10s: 30',
      );
      const config = parseConfig(yaml, 'test.yaml', { ...fx.env, HUBSPOT_BASE_URL: slowHubSpot.url }).config;
      const filter = COMPANY_FILTER;
      const expected = await fx.oracleIds('companies', filter);
      expect(expected.length).toBeGreaterThan(1500);
      let walk: WalkStats | undefined;
      let partitions = 0;
      const summary = await syncSearch(fx.deps(config), {
        search: 'all-companies',
        runId: 'slow-crm',
        onWalk: (w) => {
          walk = w;
        },
        onPlan: (p) => {
          partitions = p.partitions.length;
        },
      });
      expect(summary).toMatchObject({ status: 'completed', created: expected.length, throttled: 0 });
      expect(hubspotValues(slowHubSpot, 'companies', 'prospect_sync_id')).toEqual(expected);
      expect(slowHubSpot.stats.throttled.TEN_SECONDLY_ROLLING).toBe(0);
      expect(partitions).toBeGreaterThan(1);
      // Each walking journey holds at most one write batch (100 records for HubSpot) and the page being fetched ahead;
      // partitions' last batches waiting to be packed hold fewer than one write between them.
      expect(walk!.peakJourneys).toBeLessThanOrEqual(3);
      expect(walk!.peakUnwritten).toBeLessThan(walk!.peakJourneys * (100 + 2 * 50) + 100);
      // The source alone would have fetched everything long before the CRM took it: here most of it waited upstream.
      expect(walk!.peakUnwritten).toBeLessThan(expected.length / 3);
    },
  );

  it("the plan sizes its journeys for the ceiling the CRM answered, not the config's assumption", async () => {
    fx = await startFixture('fill-plan-ceiling', {
      account: { limits: { search: 100_000, count: 100_000, dictionary: 100_000 } },
      salesIntel: { faults: { latency: { fixedMs: 200, jitterMs: 0 } } },
    });
    const config = fx.config(hubspotConfig(COMPANY_SEARCH));
    const resolved = resolveSearch(config, 'all-companies');
    const source = openSource(config, fx.redis, fx.prefix, silentLogger);
    clients.push(source);
    // No requestsPer10s in the config: 100 requests / 10 s assumed (1,000 records/s) until the portal answers.
    // The plan's journeys before the split (what its guided sizes are cut for).
    const journeys = async (ceiling?: Promise<number | null>): Promise<number> =>
      (await startPlan(source, config, resolved, { runId: 'plan', ...(ceiling ? { ceiling } : {}) })).plan.parallelism;
    const assumed = await journeys();
    expect(await journeys(Promise.resolve(2_500))).toBeGreaterThan(assumed);
    expect(await journeys(Promise.resolve(null))).toBe(assumed);
  });

  it('a resumed run reuses its partitions: no count request for planning', async () => {
    fx = await startFixture('fill-resume-plan', {
      account: { limits: { search: 100_000, count: 100_000, dictionary: 100_000 } },
    });
    const config = fx.config(hubspotConfig(COMPANY_SEARCH));
    const resolved = resolveSearch(config, 'all-companies');
    const source = openSource(config, fx.redis, fx.prefix, silentLogger);
    clients.push(source);
    const fresh = await planRun(source, config, resolved, { runId: 'plan-1' });
    expect(fresh.partitions.length).toBeGreaterThan(1);
    expect(fresh.countRequests).toBe(source.stats().requests.count);
    expect(fresh.countRequests).toBeGreaterThan(0);
    const resumed = await planRun(source, config, resolved, {
      runId: 'plan-1',
      counted: fresh.counted,
      partitions: fresh.partitions.map((p) => ({ filter: p.filter, count: p.count })),
    });
    expect(resumed.countRequests).toBe(0);
    expect(resumed.partitions.map((p) => p.filter)).toEqual(fresh.partitions.map((p) => p.filter));
  });
});
