/**
 * `run` whose Redis refuses writes (out of memory under noeviction) or goes away mid-run, against a redis-server of
 * the test's own (stopped by PID). Out of memory waits until memory frees, then the same run goes on and completes
 * with every record once, its summary equal to the history's; Redis killed (no persistence): exit 4 with the counts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { listRuns } from '../../src/runs/run-history.js';
import type { RunSummary } from '../../src/runs/run-summary.js';
import { createRedis } from '../../src/shared/redis.js';
import { answerHookProxy } from '../helpers/answer-hook-proxy.js';
import { closeAfterEach } from '../helpers/closers.js';
import {
  COMPANY_FILTER,
  COMPANY_SEARCH,
  contactsSearch,
  hubspotConfig,
  hubspotValues,
  startFixture,
} from '../jobs/sync-fixture.js';
import type { Fixture } from '../jobs/sync-fixture.js';
import { fixtureCli, type CliResult } from './fixture-cli.js';
import { privateRedis, type PrivateRedis } from '../queue/private-redis.js';
import { waitFor } from '../queue/queue-env.js';

// Slow pages, so the run is still going when Redis fills up or goes.
const SLOW = { salesIntel: { faults: { latency: { fixedMs: 200, jitterMs: 0 } } } };
const cli = fixtureCli('redis-lost');
const closers = closeAfterEach();
afterEach(() => cli.cleanup());

async function ownRedis(): Promise<{ server: PrivateRedis; conn: Redis }> {
  const server = await privateRedis('lost-mid-run-pw');
  closers.push(() => server.destroy());
  await server.start();
  const conn = createRedis(server.url);
  conn.on('error', () => undefined);
  closers.push(async () => conn.disconnect());
  return { server, conn };
}

/** Records fetched so far, as the run's checkpoint says. */
async function fetchedSoFar(conn: Redis, prefix: string): Promise<number> {
  const raw = await conn.get(`${prefix}:run:all-companies:checkpoint`).catch(() => null);
  return raw ? (JSON.parse(raw) as { counts: { fetched: number } }).counts.fetched : 0;
}

/** `run all-companies --json` on a Redis of its own, once its checkpoint says 40 records were fetched. */
async function runMidWay(label: string): Promise<{
  fx: Fixture;
  server: PrivateRedis;
  conn: Redis;
  running: Promise<CliResult>;
}> {
  const fx = await startFixture(label, SLOW);
  closers.push(() => fx.close());
  const { server, conn } = await ownRedis();
  const yaml = hubspotConfig(COMPANY_SEARCH, '  pageSize: 20\n  parallelism: 2');
  const running = cli.run(fx, yaml, ['run', 'all-companies', '--json'], { REDIS_URL: server.url });
  await waitFor(async () => ((await fetchedSoFar(conn, fx.prefix)) >= 40 ? true : undefined), 60_000);
  return { fx, server, conn, running };
}

const COUNTS = ['fetched', 'created', 'updated', 'unchanged', 'tokensSpent'] as const;
const countsOf = (s: RunSummary): number[] => COUNTS.map((k) => s[k]);

describe('run: Redis out of memory or gone mid-run', () => {
  it('out of memory mid-run: the run waits, completes exactly once memory is raised, summary = history', async () => {
    const { fx, conn, running } = await runMidWay('redis-oom');
    await conn.config('SET', 'maxmemory', '1');
    const expected = await fx.oracleIds('companies', COMPANY_FILTER);
    // The run meets the full memory (pages go on being fetched meanwhile: writes are what is refused).
    const stuck = await fetchedSoFar(conn, fx.prefix);
    await new Promise((r) => setTimeout(r, 4_000));
    expect(await fetchedSoFar(conn, fx.prefix)).toBe(stuck);
    await conn.config('SET', 'maxmemory', '0');
    const r = await running;
    const summary = r.last() as RunSummary;
    expect([r.code, summary.status, summary.error]).toEqual([0, 'completed', undefined]);
    expect(summary.fetched).toBeGreaterThanOrEqual(expected.length);
    expect(hubspotValues(fx.hubspot!, 'companies', 'prospect_sync_id')).toEqual(expected);
    const recorded = (await listRuns(conn, 'all-companies', { prefix: fx.prefix })).find(
      (s) => s.runId === summary.runId && s.status === 'completed',
    );
    expect(recorded && countsOf(recorded)).toEqual(countsOf(summary));
    // The completed run's matched set was settled; nothing of the run is left behind.
    expect(await conn.keys(`${fx.prefix}:mirror:*:run:*`)).toEqual([]);
  }, 120_000);

  it('Redis killed mid-run (no persistence): exit 4, redis_unavailable, the counts of what the run did', async () => {
    const { server, running, fx } = await runMidWay('redis-killed');
    await server.destroy();
    const r = await running;
    const summary = r.last() as RunSummary;
    expect([r.code, summary.status, summary.error?.code]).toEqual([4, 'failed', 'redis_unavailable']);
    expect(summary.fetched).toBeGreaterThanOrEqual(40);
    expect(summary.created).toBeGreaterThanOrEqual(40);
    expect(summary.tokensSpent).toBeGreaterThanOrEqual(summary.fetched);
    // Counted: every batch HubSpot took, those Redis could no longer record included.
    expect(hubspotValues(fx.hubspot!, 'companies', 'prospect_sync_id').length).toBe(summary.created);
  }, 120_000);

  it('Redis killed just as HubSpot took a batch: that batch is counted, created = what HubSpot holds', async () => {
    const { r, summary, held } = await killedAsHubSpotTakes('companies', COMPANY_SEARCH, 'all-companies');
    expect([r.code, summary.status, summary.error?.code]).toEqual([4, 'failed', 'redis_unavailable']);
    expect([summary.created, summary.updated]).toEqual([held, 0]);
    expect(summary.fetched).toBeGreaterThanOrEqual(held);
  }, 120_000);

  it('Redis killed as HubSpot took persons whose company links need Redis next: counted all the same', async () => {
    const { r, summary, held } = await killedAsHubSpotTakes(
      'contacts',
      contactsSearch('\n    associate: {company: {from: companyId}}', { fields: 'firstname: firstName' }),
      'people',
      '  credits: {maxPerRun: 100000, maxPerDay: 100000}\n',
    );
    expect([r.code, summary.status, summary.error?.code]).toEqual([4, 'failed', 'redis_unavailable']);
    expect([summary.created, summary.updated]).toEqual([held, 0]);
  }, 120_000);
});

/**
 * `run <search> --json` (writing `object`) on a Redis of its own, killed once HubSpot has taken the run's second
 * batch and before the run hears of it; the run's answer and how many objects HubSpot holds.
 */
async function killedAsHubSpotTakes(
  object: string,
  searches: string,
  search: string,
  source = '',
): Promise<{ r: CliResult; summary: RunSummary; held: number }> {
  const fx = await startFixture(`redis-lost-${object}`, SLOW);
  closers.push(() => fx.close());
  const { server } = await ownRedis();
  let upserts = 0;
  let killed = false;
  const proxy = await answerHookProxy(fx.hubspot!.url, async ({ path, status }) => {
    if (path !== `/crm/v3/objects/${object}/batch/upsert` || status !== 200 || ++upserts !== 2) return;
    await server.destroy();
    killed = true;
  });
  closers.push(() => proxy.close());
  const yaml = hubspotConfig(searches, `${source}  pageSize: 20\n  parallelism: 2`);
  const r = await cli.run(fx, yaml, ['run', search, '--json'], { REDIS_URL: server.url, HUBSPOT_BASE_URL: proxy.url });
  expect(killed).toBe(true);
  const held = hubspotValues(fx.hubspot!, object, 'prospect_sync_id').length;
  expect(held).toBeGreaterThan(0);
  return { r, summary: r.last() as RunSummary, held };
}
