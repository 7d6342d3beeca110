/**
 * `after:` through the real queue: a persons search that links to companies, queued together with (even before) its
 * companies search, waits (delayed, visible as waiting) until the companies run is done, so every link lands.
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { startRoles, type RunningRoles } from '../../src/cli/commands/start.js';
import { DEMO_DATASET } from '../../src/emulators/start-all.js';
import { parseConfig, type AppConfig } from '../../src/config/index.js';
import { startHubSpotEmulator } from '../../src/emulators/hubspot/index.js';
import { enqueueRun } from '../../src/queue/index.js';
import { listRuns } from '../../src/runs/run-history.js';
import type { RunSummary } from '../../src/runs/run-summary.js';
import { runHistoryPage, runsIndexPage } from '../../src/server/runs-pages.js';
import { formatRunLine } from '../../src/runs/format-summary.js';
import { searchRows } from '../../src/server/run-views.js';
import { silentLogger } from '../../src/shared/logger.js';
import { fixtureCli } from './fixture-cli.js';
import { COMPANY_SEARCH, HUBSPOT_TOKEN, hubspotConfig, startFixture, type Fixture } from '../jobs/sync-fixture.js';

let fx: Fixture | undefined;
let roles: RunningRoles | undefined;
afterEach(async () => {
  await roles?.close(2_000);
  await fx?.close();
  fx = roles = undefined;
});

const PEOPLE = `
  - name: people
    segment: icp
    entity: persons
    filter: {company: {headcount: {gte: 1, lte: 1000000}}}
    view: [demographics]
    destination: crm
    object: contacts
    matchOn: {field: prospect_sync_id, from: id}
    fields: {firstname: firstName}
    associate: {company: {from: companyId}}
    after: [all-companies]
`;

async function finished(f: Fixture, search: string, withinMs = 60_000): Promise<RunSummary> {
  const until = Date.now() + withinMs;
  for (;;) {
    const run = (await listRuns(f.redis, search, { prefix: f.prefix })).find((r) => r.status !== 'delayed');
    if (run) return run;
    if (Date.now() > until) throw new Error(`no finished run of ${search}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('after: between searches', () => {
  it('a persons run queued first waits for its companies run, then links every person', async () => {
    fx = await startFixture('search-order', { salesIntel: { faults: { latency: { fixedMs: 30, jitterMs: 0 } } } });
    const config = fx.config(hubspotConfig(`${COMPANY_SEARCH}${PEOPLE}`));
    roles = await startRoles({
      roles: { scheduler: false, worker: true, dashboard: false },
      config,
      configPath: 'unused.yaml',
      logger: silentLogger,
      prefix: fx.prefix,
      concurrency: 2,
    });
    const people = await enqueueRun(roles.queues.sync, 'people', 'manual');
    const companies = await enqueueRun(roles.queues.sync, 'all-companies', 'manual');

    // Visible as waiting while the companies run is queued or active.
    const until = Date.now() + 20_000;
    let progress: unknown;
    let page = '';
    while (Date.now() < until && !progress) {
      const job = await roles.queues.sync.getJob(people.jobId);
      if (job && (await job.getState()) === 'delayed') {
        progress = job.progress;
        page = await runsIndexPage(
          await searchRows({
            redis: fx.redis,
            prefix: fx.prefix,
            queues: [roles.queues.sync, roles.queues.tick],
            searches: () => config.searches,
          }),
        );
      } else await new Promise((r) => setTimeout(r, 20));
    }
    expect(progress).toMatchObject({ waitingFor: ['all-companies'] });
    expect(page).toContain('waiting for all-companies');

    const companiesRun = await finished(fx, 'all-companies');
    const peopleRun = await finished(fx, 'people');
    expect(companiesRun).toMatchObject({ runId: companies.jobId, status: 'completed' });
    expect(peopleRun).toMatchObject({ runId: people.jobId, status: 'completed' });
    expect(peopleRun.linkErrors ?? 0).toBe(0);
    expect(peopleRun.created).toBeGreaterThan(0);
    expect(Date.parse(peopleRun.startedAt)).toBeGreaterThanOrEqual(Date.parse(companiesRun.finishedAt));
  });

  it(
    'the first start of the demo config: the hourly persons search queues its never completed companies search, ' +
      'waits, links all',
    async () => {
      fx = await startFixture('demo-first-start', { salesIntel: { ...DEMO_DATASET } });
      const config = fx.config(readFileSync('config/demo.yaml', 'utf8'));
      roles = await startRoles({
        roles: { scheduler: true, worker: true, dashboard: false },
        config,
        configPath: 'config/demo.yaml',
        logger: silentLogger,
        prefix: fx.prefix,
        concurrency: 2,
      });
      const leaders = await finished(fx, 'dach-software-leaders', 240_000);
      const companies = (await listRuns(fx.redis, 'dach-software', { prefix: fx.prefix })).at(-1);
      expect(companies).toMatchObject({ status: 'completed', trigger: 'schedule' });
      expect(companies!.created).toBeGreaterThan(0);
      expect(leaders).toMatchObject({ status: 'completed' });
      expect(leaders.created).toBeGreaterThan(0);
      expect(leaders.linkErrors ?? 0).toBe(0);
      expect(leaders.warnings?.count ?? 0).toBe(0);
      // Every contact written was linked to its company: the summary counts the links.
      expect(leaders.links).toEqual({ company: { linked: leaders.created + leaders.updated, linkFailed: 0 } });
      expect(companies!.links).toBeUndefined();
      expect(formatRunLine(leaders)).toContain(`linked ${leaders.created + leaders.updated}  link failed 0`);
      const page = runHistoryPage('dach-software-leaders', [leaders], undefined);
      expect(page).toContain('Links made / failed');
      expect(page).toContain(`>${leaders.created + leaders.updated} / 0<`);
      expect(Date.parse(leaders.startedAt)).toBeGreaterThanOrEqual(Date.parse(companies!.finishedAt));
    },
    300_000,
  );

  it('`run` of a search with after: says which searches it follows and whether they completed', async () => {
    fx = await startFixture('run-after');
    const cli = fixtureCli('run-after');
    try {
      const yaml = hubspotConfig(`${COMPANY_SEARCH}${PEOPLE}`);
      const before = await cli.run(fx, yaml, ['run', 'people', '--dry-run', '--json']);
      expect(before.code).toBe(0);
      expect(before.err).toContain(
        'runs after all-companies (never completed: what links to it may fail); `run` does not wait for them',
      );
      // A real run before the companies: written, not linked, and counted so.
      const unlinked = await cli.run(fx, yaml, ['run', 'people', '--json']);
      const summary = unlinked.last() as RunSummary;
      expect(summary.created).toBeGreaterThan(0);
      expect(summary.links).toEqual({ company: { linked: 0, linkFailed: summary.created } });
      const runs = await cli.run(fx, yaml, ['runs', 'people']);
      expect(runs.out).toContain(`linked 0  link failed ${summary.created}`);
      expect((await cli.run(fx, yaml, ['run', 'all-companies'])).code).toBe(0);
      const after = await cli.run(fx, yaml, ['run', 'people', '--dry-run']);
      expect(after.err).toMatch(/runs after all-companies \(last complete run \d{4}-\d\d-\d\dT[\d:.]+Z\)/);
    } finally {
      await cli.cleanup();
    }
  }, 120_000);
});

describe('after: per CRM instance', () => {
  it('a destination pointed at another portal waits for (and queues) its followed search there first', async () => {
    fx = await startFixture('after-instance');
    const yaml = hubspotConfig(`${COMPANY_SEARCH}${PEOPLE}`);
    const start = async (config: AppConfig): Promise<RunningRoles> =>
      startRoles({
        roles: { scheduler: false, worker: true, dashboard: false },
        config,
        configPath: 'unused.yaml',
        logger: silentLogger,
        prefix: fx!.prefix,
        concurrency: 2,
      });
    roles = await start(fx.config(yaml));
    await enqueueRun(roles.queues.sync, 'all-companies', 'manual');
    const first = await finished(fx, 'all-companies');
    expect(first).toMatchObject({ status: 'completed', crmInstance: `hubspot:${fx.hubspot!.portalId}` });
    await roles.close(2_000);

    // The same destination, now another portal (another HubSpot account behind the same token name).
    const other = await startHubSpotEmulator({ port: 0, accessTokens: [HUBSPOT_TOKEN], portalId: 7_654_321 });
    try {
      roles = await start(parseConfig(yaml, 'test.yaml', { ...fx.env, HUBSPOT_BASE_URL: other.url }).config);
      const people = await enqueueRun(roles.queues.sync, 'people', 'manual');
      const peopleRun = await finished(fx, 'people', 90_000);
      const companiesRuns = await listRuns(fx.redis, 'all-companies', { prefix: fx.prefix });
      expect(companiesRuns).toHaveLength(2);
      const second = companiesRuns[0]!;
      expect(second).toMatchObject({ status: 'completed', crmInstance: 'hubspot:7654321' });
      expect(second.created).toBeGreaterThan(0);
      expect(peopleRun).toMatchObject({ runId: people.jobId, status: 'completed', crmInstance: 'hubspot:7654321' });
      expect(peopleRun.linkErrors ?? 0).toBe(0);
      expect(Date.parse(peopleRun.startedAt)).toBeGreaterThanOrEqual(Date.parse(second.finishedAt));
    } finally {
      await roles?.close(2_000);
      roles = undefined;
      await other.close();
    }
  }, 150_000);
});
