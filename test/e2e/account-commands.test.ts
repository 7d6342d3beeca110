/**
 * `plan --all` and `account` as a user runs them: a child process, a YAML file, the Sales-Intelligence emulator,
 * real Redis. The forecast's figures against a seeded run history and a known balance; the account's settings and
 * the limits learned by one run.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { AllotmentForecast } from '../../src/runs/allotment-forecast.js';
import { recordRun } from '../../src/runs/run-history.js';
import { fixtureCli } from './fixture-cli.js';
import {
  COMPANY_FILTER,
  COMPANY_SEARCH,
  companySearch,
  completedRun,
  hubspotConfig,
  startFixture,
  type Fixture,
} from '../jobs/sync-fixture.js';

let fx: Fixture | undefined;
const cli = fixtureCli('account');
afterEach(async () => {
  await fx?.close();
  await cli.cleanup();
  fx = undefined;
});

const H = 3_600_000;
const D = 24 * H;
/** `2026-11-28 06:00 Asia/Dhaka (00:00Z)`: Dhaka is UTC+6 all year. */
const inDhaka = (at: number): string => {
  const local = new Date(at + 6 * H).toISOString();
  return `${local.slice(0, 10)} ${local.slice(11, 16)} Asia/Dhaka (${new Date(at).toISOString().slice(11, 16)}Z)`;
};

// all-companies every 6 h; "top" (maxRecords 30) daily; "manual" has no schedule and is left out.
// all-companies' cron in Asia/Dhaka (UTC+6, no DST) fires at the same instants as every 6 h.
const SEARCHES = `${COMPANY_SEARCH.replace(
  '    destination: crm',
  '    schedule: {cron: "0 */6 * * *", timezone: Asia/Dhaka}\n    destination: crm',
)}${companySearch(
  'top',
  `    maxRecords: 30
    schedule: {every: 1d}
`,
)}${companySearch('manual')}`;

describe('plan --all and account (child process)', () => {
  it(
    'plan --all: one free count per search never run, then the pace of its runs against a known balance; the day ' +
      'it runs out',
    async () => {
      fx = await startFixture('plan-all');
      const yaml = hubspotConfig(SEARCHES);
      const matches = (await fx.oracleIds('companies', COMPANY_FILTER)).length;

      const first = await cli.run(fx, yaml, ['plan', '--all', '--json']);
      expect(first.code).toBe(0);
      expect(first.last()).toEqual({
        forecast: null, // no balance known before the first search
        searches: [
          { search: 'all-companies', tokens: matches, credits: 0, basis: 'count', runs: 0 },
          { search: 'top', tokens: 30, credits: 0, basis: 'count', runs: 0 },
        ],
      });
      expect(fx.si.stats('worker').operations.count).toBe(2);
      expect(fx.si.stats('worker').tokensCharged).toBe(0);

      // One real run: the balance becomes known; "top" gets a seeded history (mean 41 + 50 + 60 = 151 / 3, rounded up:
      // 51).
      expect((await cli.run(fx, yaml, ['run', 'all-companies'])).code).toBe(0);
      for (const [id, t] of [
        ['t1', 41],
        ['t2', 50],
        ['t3', 60],
      ] as const)
        await recordRun(fx.redis, completedRun('top', id, t), { prefix: fx.prefix });
      const account = (await cli.run(fx, yaml, ['account', '--json'])).last() as { account: string };
      // A known balance: 9,000 of 100,000, resetting just after the 8th 6-hour mark from now.
      const now = Date.now();
      const firstMark = Math.floor(now / (6 * H)) * 6 * H + 6 * H;
      const resetAt = firstMark + 7 * 6 * H + 1000;
      const tokensKey = `${fx.prefix}:source:${account.account}:tokens`;
      await fx.redis.hset(tokensKey, { limit: 100_000, remaining: 9_000, resetAt, observedAt: now });
      const dailyRuns = Math.floor((resetAt - 1) / D) - Math.floor(now / D);

      const counts = fx.si.stats('worker').operations.count;
      const plan = await cli.run(fx, yaml, ['plan', '--all', '--json']);
      expect(plan.code).toBe(0);
      const { forecast } = plan.last() as { forecast: AllotmentForecast };
      expect(fx.si.stats('worker').operations.count).toBe(counts); // every search has history: no count
      expect(forecast.searches).toEqual([
        {
          search: 'all-companies',
          runsLeft: 8,
          nextRunAt: new Date(firstMark).toISOString(),
          tokensPerRun: matches,
          creditsPerRun: 0,
          basis: 'history',
          tokens: 8 * matches,
          credits: 0,
        },
        expect.objectContaining({
          search: 'top',
          runsLeft: dailyRuns,
          tokensPerRun: 51,
          basis: 'history',
          tokens: dailyRuns * 51,
        }),
      ]);
      expect(forecast).toMatchObject({
        limit: 100_000,
        remaining: 9_000,
        tokens: 8 * matches + dailyRuns * 51,
        tokensLeftAtReset: 9_000 - 8 * matches - dailyRuns * 51,
      });
      expect(forecast.tokensLeftAtReset).toBeGreaterThanOrEqual(0);
      expect(forecast.exhaustsAt).toBeNull();

      // A balance below one run of all-companies: its next run is the one the allotment no longer covers.
      await fx.redis.hset(tokensKey, { remaining: matches - 1 });
      const short = await cli.run(fx, yaml, ['plan', '--all']);
      expect(short.code).toBe(0);
      expect(short.out).toContain(
        `exhausted    ${new Date(firstMark).toISOString().slice(0, 10)} (run of all-companies ` +
          `at ${inDhaka(firstMark)})`,
      );
      expect(short.out).toContain(`allotment until ${inDhaka(resetAt)}: balance`);
      expect(short.out).toMatch(
        new RegExp(
          `all-companies\\s+8\\s+${matches}\\s+0\\s+${8 * matches}\\s+0\\s+history\\s+` +
            `${inDhaka(firstMark).replace(/[()]/g, '\\$&')}`,
        ),
      );
    },
  );

  it('plan --all: the searches never run are counted side by side, within the account count limit', async () => {
    // 30 searches never run, each count 80 ms; the account answers 10 counts per window, as the config says.
    fx = await startFixture('plan-all-lanes', {
      salesIntel: { windowSeconds: 1, faults: { latency: { fixedMs: 80, jitterMs: 0 } } },
      account: { limits: { search: 500, count: 10, dictionary: 500 } },
    });
    const names = Array.from({ length: 30 }, (_, i) => `s${i}`);
    const yaml = hubspotConfig(
      names.map((n) => companySearch(n, '    schedule: {cron: "*/15 * * * *"}')).join(''),
    ).replace('count: 500, dictionary: 500, windowSeconds: 60', 'count: 10, dictionary: 500, windowSeconds: 1');
    const plan = await cli.run(fx, yaml, ['plan', '--all', '--json']);
    expect(plan.code).toBe(0);
    const { searches } = plan.last() as { searches: { search: string; basis: string }[] };
    expect(searches.map((s) => [s.search, s.basis])).toEqual(names.map((n) => [n, 'count']));
    const stats = fx.si.stats('worker');
    expect(stats.operations.count).toBe(30);
    expect(stats.peakInFlight.count).toBeGreaterThan(1);
    expect(stats.peakPerWindow.count).toBeLessThanOrEqual(10);
    expect(stats.served429.count).toBe(0);
  });

  it(
    'account: settings, the limits learned by one run and when, the balance and credits against the ' + 'caps',
    async () => {
      fx = await startFixture('account');
      const yaml = hubspotConfig(COMPANY_SEARCH, '  credits: {maxPerDay: 40}');
      const before = await cli.run(fx, yaml, ['account', '--json']);
      expect(before.code).toBe(0);
      expect(before.last()).toMatchObject({
        tokens: null,
        credits: { today: 0, maxPerDay: 40, leftToday: 40, maxPerRun: 0 },
        settings: {
          compliance: { accountId: 'worker', gdprMode: 'strict', honorOptOuts: true },
          personalization: { language: 'en', currency: 'USD' },
          intentTopics: { topics: expect.arrayContaining([{ id: 'crm-migration', name: 'CRM migration' }]) },
        },
      });

      const started = Date.now();
      expect((await cli.run(fx, yaml, ['run', 'all-companies'])).code).toBe(0);
      const after = await cli.run(fx, yaml, ['account', '--json']);
      const view = after.last() as {
        tokens: { limit: number; remaining: number };
        limits: {
          remote: string;
          operation: string;
          limit: number;
          windowSeconds: number;
          source: string;
          learnedAt: string;
        }[];
      };
      expect(view.tokens).toMatchObject({
        limit: 1_000_000_000,
        remaining: 1_000_000_000 - fx.si.stats('worker').tokensCharged,
      });
      const search = view.limits.find((l) => l.operation === 'search');
      expect(search).toMatchObject({ limit: 500, windowSeconds: 60, source: 'headers' });
      expect(Date.parse(search!.learnedAt)).toBeGreaterThanOrEqual(started - 1000);
      expect(view.limits.some((l) => l.remote !== search!.remote)).toBe(true); // the CRM's governor too

      const text = await cli.run(fx, yaml, ['account']);
      expect(text.out).toMatch(/search: 500 per 60s \(learned from headers, \d{4}-/);
      expect(text.out).toContain('credits    0 today of 40 (40 left)');
      expect(text.out).toContain('"gdprMode":"strict"');
    },
  );

  it(
    'account against an API without settings routes: every other section, each setting unavailable with its path ' +
      'and config key, exit 0',
    async () => {
      fx = await startFixture('account-no-settings', { salesIntel: { settingsRoutes: false } });
      const yaml = hubspotConfig(COMPANY_SEARCH, '  credits: {maxPerDay: 40}');
      expect((await cli.run(fx, yaml, ['run', 'all-companies'])).code).toBe(0);
      const json = await cli.run(fx, yaml, ['account', '--json']);
      expect([json.code, json.err]).toEqual([0, '']);
      expect(json.last()).toMatchObject({
        tokens: { limit: 1_000_000_000 },
        credits: { today: 0, maxPerDay: 40 },
        limits: expect.arrayContaining([expect.objectContaining({ operation: 'search', limit: 500 })]),
        settings: { compliance: null, personalization: null, intentTopics: null },
        settingsUnavailable: [
          {
            name: 'compliance',
            path: '/settings/compliance',
            configKey: 'source.paths.settings.compliance',
            status: 404,
          },
          {
            name: 'personalization',
            path: '/settings/personalization',
            configKey: 'source.paths.settings.personalization',
            status: 404,
          },
          {
            name: 'intentTopics',
            path: '/settings/intent-topics',
            configKey: 'source.paths.settings.intentTopics',
            status: 404,
          },
        ],
      });
      const text = await cli.run(fx, yaml, ['account']);
      expect(text.code).toBe(0);
      expect(text.out).toMatch(/^tokens +\d+ of 1000000000/m);
      expect(text.out).toContain('credits    0 today of 40 (40 left)');
      expect(text.out).toContain(
        'compliance unavailable: GET /settings/compliance answered 404; set source.paths.settings.compliance to ' +
          'the path your API serves',
      );
    },
  );
});
