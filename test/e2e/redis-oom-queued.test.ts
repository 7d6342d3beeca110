/**
 * A queued run whose Redis fills up mid-run (`noeviction`, `maxmemory` lowered to what Redis holds): a real worker
 * process (BullMQ) on a redis-server of the test's own. The attempt meets the full memory and waits; once `maxmemory`
 * is raised the job is delayed without using an attempt (never failed), goes on from its checkpoint and completes
 * exactly: HubSpot holds every match once, and the stored summary counts each record the CRM holds once.
 */
import { describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { enqueueRun } from '../../src/queue/index.js';
import { listRuns } from '../../src/runs/run-history.js';
import { closeAfterEach } from '../helpers/closers.js';
import { diffCrmState, expectedRows, hubspotRows, NO_DIFF } from '../helpers/crm-state.js';
import { ownRedisWorker } from '../helpers/own-redis-worker.js';
import { jobEnded, waitFor } from '../helpers/worker-process.js';
import { COMPANY_FILTER, startFixture } from '../jobs/sync-fixture.js';

const FIELDS = { name: 'name', domain: 'domain', numberofemployees: 'headcount' };
/** The worker's log line once a run's end waits for Redis to take writes again (jobs/sync-search/run-session.ts). */
const MEMORY_WAIT = 'the run waits for memory to free';

/** Commands Redis refused for want of memory so far (INFO errorstats). */
async function oomRefusals(conn: Redis): Promise<number> {
  const stats = await conn.info('errorstats');
  return Number(/errorstat_OOM:count=(\d+)/.exec(stats)?.[1] ?? 0);
}

/** The events BullMQ logged for `jobId` (its events stream), oldest first. */
async function jobEvents(conn: Redis, prefix: string, queue: string, jobId: string): Promise<string[]> {
  const entries = await conn.xrange(`${prefix}:${queue}:events`, '-', '+');
  return entries.flatMap(([, fields]) => {
    const at = (name: string): string | undefined => fields[fields.indexOf(name) + 1];
    return at('jobId') === jobId ? [at('event') ?? ''] : [];
  });
}

describe('queued run: Redis out of memory mid-run', () => {
  const closers = closeAfterEach();

  it('the job waits, is delayed without using an attempt once memory is raised, and completes exactly', async () => {
    const fx = await startFixture('redis-oom-queued', {
      salesIntel: { faults: { latency: { fixedMs: 200, jitterMs: 0 } } },
    });
    closers.push(() => fx.close());
    const expected = expectedRows(await fx.oracleRecords('companies', COMPANY_FILTER), 'id', FIELDS);
    const { conn, queues, pool, prefix, fetched } = await ownRedisWorker(fx, closers, 'oom-queued', {
      redisArgs: ['--maxmemory-policy', 'noeviction'],
      env: { WORKER_LOCKS: 'production', LOG_LEVEL: 'warn' },
    });
    const worker = await pool.spawn();
    let logged = '';
    worker.stdout?.on('data', (d: Buffer) => (logged += d.toString()));

    const { jobId } = await enqueueRun(queues.sync, 'all-companies', 'manual');
    await waitFor(async () => ((await fetched()) >= 40 ? true : undefined), 60_000, 'the run under way');
    // Redis is full from now on: what it holds is its limit.
    const used = Number(/used_memory:(\d+)/.exec(await conn.info('memory'))?.[1]);
    await conn.config('SET', 'maxmemory', String(used));
    await waitFor(async () => (logged.includes(MEMORY_WAIT) ? true : undefined), 30_000, 'the run waits for memory');
    // The attempt met the full memory and its end waits: the job is neither failed nor over.
    expect(await queues.sync.getJobState(jobId)).toBe('active');
    expect(await oomRefusals(conn)).toBeGreaterThan(0);
    await conn.config('SET', 'maxmemory', '0');

    expect(await jobEnded(queues.sync, jobId, 60_000)).toBe('completed');
    const job = await queues.sync.getJob(jobId);
    // Started twice, one attempt made: the one that completed (the delay used none).
    expect([job?.attemptsStarted, job?.attemptsMade]).toEqual([2, 1]);
    const events = await jobEvents(conn, prefix, queues.sync.name, jobId);
    expect(events).toContain('delayed');
    expect(events).not.toContain('failed');
    const runs = (await listRuns(conn, 'all-companies', { prefix })).filter((r) => r.runId === jobId);
    // The attempt Redis refused ended redis_unavailable; the same run went on and completed.
    expect(runs.map((r) => [r.status, r.error?.code])).toEqual(
      expect.arrayContaining([
        ['failed', 'redis_unavailable'],
        ['completed', undefined],
      ]),
    );
    const completed = runs.find((r) => r.status === 'completed')!;
    expect(
      diffCrmState(hubspotRows(fx.hubspot!, 'companies', 'prospect_sync_id', Object.keys(FIELDS)), expected),
    ).toEqual(NO_DIFF);
    expect([completed.unique, completed.created + completed.updated + completed.unchanged]).toEqual([
      expected.size,
      expected.size,
    ]);
    expect(completed.fetched).toBeGreaterThanOrEqual(expected.size);
  }, 120_000);
});
