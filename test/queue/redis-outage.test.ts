/**
 * Redis loss is a state, not a flood: `start` in a child process against a private redis-server that the test
 * starts late, stops mid-run and restarts (by PID). While Redis is down the process says so once (naming the URL
 * without its password); when it returns the queued run resumes from its checkpoint and lands every record once.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { enqueueRun, openQueues } from '../../src/queue/index.js';
import { listRuns } from '../../src/runs/run-history.js';
import { createRedis } from '../../src/shared/redis.js';
import { redisState, trackRedisState } from '../../src/shared/redis-state.js';
import { closeAfterEach } from '../helpers/closers.js';
import { COMPANY_FILTER, COMPANY_SEARCH, hubspotConfig, hubspotValues, startFixture } from '../jobs/sync-fixture.js';
import { cli } from './cli-process.js';
import { privateRedis } from './private-redis.js';
import { waitFor } from './queue-env.js';

const PASSWORD = 'outage-test-pw-7f3a';
// Slow pages, so the run is still going when Redis is stopped.
const SLOW = { salesIntel: { faults: { latency: { fixedMs: 250, jitterMs: 0 } } } };

interface LogLine {
  level: number;
  msg: string;
  [key: string]: unknown;
}

const parse = (out: string): LogLine[] =>
  out
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as LogLine);

describe('start with Redis going away and coming back', () => {
  const closers = closeAfterEach();

  it(
    'logs the outage once, keeps running, and the queued run completes from its checkpoint after Redis ' + 'returns',
    async () => {
      const fx = await startFixture('redis-outage', SLOW);
      closers.push(() => fx.close());
      const expected = await fx.oracleIds('companies', COMPANY_FILTER);
      const redis = await privateRedis(PASSWORD);
      closers.push(() => redis.destroy());
      const dir = await mkdtemp(join(tmpdir(), 'ps-outage-'));
      closers.push(() => rm(dir, { recursive: true, force: true }));
      const configPath = join(dir, 'config.yaml');
      await writeFile(
        configPath,
        `${hubspotConfig(COMPANY_SEARCH, '  pageSize: 20\n  parallelism: 2')}server:\n  port: 0\n`,
      );
      const prefix = 'ps-outage';

      // 1. Redis not there yet: `start` comes up anyway and says so once.
      const child = cli(['start', '--config', configPath], {
        ...fx.env,
        REDIS_URL: redis.url,
        QUEUE_PREFIX: prefix,
        LOG_LEVEL: 'info',
      });
      closers.push(async () => {
        if (child.child.exitCode === null) {
          child.child.kill('SIGKILL');
          await child.exited;
        }
      });
      const lines = (): LogLine[] => parse(child.out());
      const unreachable = (): LogLine[] => lines().filter((l) => l.msg.includes('is unreachable'));
      const back = (): LogLine[] => lines().filter((l) => l.msg.includes('reachable again'));
      await waitFor(() => lines().some((l) => l.msg === 'started') || undefined, 30_000);
      await waitFor(() => unreachable().length === 1 || undefined, 10_000);
      // a few reconnection attempts (backoff 200 ms doubling) pass; still one line
      await new Promise((r) => setTimeout(r, 3_000));
      expect(unreachable().length).toBe(1);

      // 2. Redis arrives: one recovery line; the test queues a run through it.
      await redis.start();
      await waitFor(() => back().length === 1 || undefined, 20_000);
      const conn = createRedis(redis.url);
      conn.on('error', () => undefined);
      closers.push(async () => conn.disconnect());
      trackRedisState(conn);
      const queues = openQueues({ connection: conn, prefix });
      closers.push(() => queues.close().catch(() => undefined));
      const { jobId } = await enqueueRun(queues.sync, 'all-companies', 'manual');
      const fetchedAtStop = await waitFor(async () => {
        const raw = await conn.get(`${prefix}:run:all-companies:checkpoint`);
        const fetched = raw ? (JSON.parse(raw) as { counts: { fetched: number } }).counts.fetched : 0;
        return fetched >= 40 ? fetched : undefined;
      }, 30_000);
      // the run is mid-way when Redis goes
      expect(await queues.sync.getJobState(jobId)).toBe('active');
      expect(fetchedAtStop).toBeLessThan(expected.length);

      // 3. Redis stopped mid-run: the process keeps going and logs the outage once more, nothing else at warn+.
      const before = lines().length;
      await redis.stop();
      await waitFor(() => !redisState(conn).up || undefined, 5_000);
      await waitFor(() => unreachable().length === 2 || undefined, 10_000);
      await waitFor(() => redisState(conn).lastError || undefined, 10_000);
      await new Promise((r) => setTimeout(r, 4_000));
      const during = lines().slice(before);
      expect(child.child.exitCode).toBeNull();
      expect(during.filter((l) => l.level >= 40).map((l) => l.msg)).toEqual([unreachable()[1]?.msg]);
      expect(unreachable()[1]).toMatchObject({ redis: `redis://127.0.0.1:${redis.port}/0` });
      // bounded: the down period produced a handful of lines (one outage line; info lines of the run in flight)
      expect(during.length).toBeLessThan(10);

      // 4. Redis back: the same run completes with every record exactly once.
      const downSince = redisState(conn).since;
      await redis.start();
      await waitFor(() => back().length === 2 || undefined, 20_000);
      await waitFor(() => redisState(conn).up || undefined, 10_000);
      expect(redisState(conn).since).toBeGreaterThan(downSince);
      const run = await waitFor(
        async () =>
          (await listRuns(conn, 'all-companies', { prefix })).find(
            (r) => r.runId === jobId && r.status === 'completed',
          ),
        60_000,
      );
      expect(run.counted).toBe(expected.length);
      expect(hubspotValues(fx.hubspot!, 'companies', 'prospect_sync_id')).toEqual(expected);

      // Never a raw stack trace, never the password.
      expect(child.err()).toBe('');
      expect(child.out()).not.toContain(PASSWORD);
      expect(child.out()).not.toContain('    at ');

      child.child.kill('SIGTERM');
      expect(await child.exited).toBe(0);
    },
    150_000,
  );
});
