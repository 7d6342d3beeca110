import { describe, expect, it } from 'vitest';
import { enqueueRun, openQueues, startSyncWorker, syncJobSchedulers } from '../../src/queue/index.js';
import { DashboardAuthError, startDashboardServer } from '../../src/server/index.js';
import { recordRun } from '../../src/runs/run-history.js';
import { emptyCounts, type RunSummary } from '../../src/runs/run-summary.js';
import type { SavedSearch } from '../../src/config/index.js';
import { createRedis } from '../../src/shared/redis.js';
import { silentLogger } from '../../src/shared/logger.js';
import { queueEnv, waitFor } from '../queue/queue-env.js';
import { closeAfterEach } from '../helpers/closers.js';

const AUTH = { username: 'ops', password: 's3cret-pass' };
const basic = (u: string, p: string): string => `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`;

describe('dashboard server', () => {
  const closers = closeAfterEach();

  async function serve(extra: { metricsAuth?: boolean; readOnly?: boolean | string[]; adminActions?: boolean } = {}) {
    const env = await queueEnv('dashboard');
    const queues = openQueues(env.ctx);
    closers.push(env.cleanup, queues.close);
    const server = await startDashboardServer({
      queues: [queues.sync, queues.tick],
      redis: env.ctx.connection,
      port: 0,
      auth: AUTH,
      logger: silentLogger,
      ...extra,
    });
    closers.push(server.close);
    return { env, queues, server };
  }

  it('basic auth guards the board: 401 with a challenge, 200 with the right credentials', async () => {
    const { server } = await serve();
    const none = await fetch(`${server.url}/`);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Basic realm="prospect-sync"/);
    expect((await fetch(`${server.url}/`, { headers: { authorization: basic('ops', 'wrong') } })).status).toBe(401);
    expect((await fetch(`${server.url}/`, { headers: { authorization: basic('nobody', AUTH.password) } })).status).toBe(
      401,
    );
    const ok = await fetch(`${server.url}/`, { headers: { authorization: basic(AUTH.username, AUTH.password) } });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toMatch(/<html/i);
    expect(ok.url).toBe(`${server.url}/runs`);
    expect((await fetch(`${server.url}/admin/queues/api/queues`)).status).toBe(401);
    const board = await fetch(`${server.url}/admin/queues`, {
      headers: { authorization: basic(AUTH.username, AUTH.password) },
    });
    expect(board.status).toBe(200);
    expect(await board.text()).toContain('/admin/queues/');
  });

  it('lists both queues through the bull-board API, read-only where configured', async () => {
    const { server } = await serve({ readOnly: ['prospect-sync'], adminActions: true });
    const res = await fetch(`${server.url}/admin/queues/api/queues?activeQueue=prospect-sync&status=latest&page=1`, {
      headers: { authorization: basic(AUTH.username, AUTH.password) },
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { queues: { name: string; readOnlyMode: boolean }[] };
    const byName = Object.fromEntries(body.queues.map((q) => [q.name, q.readOnlyMode]));
    expect(byName).toEqual({ 'prospect-sync': true, 'prospect-sync-ticks': false });
  });

  it('/healthz needs no auth and reflects Redis; /metrics is Prometheus text with queue counts', async () => {
    const { server, queues, env } = await serve({ metricsAuth: false });
    await enqueueRun(queues.sync, 'dach', 'manual');
    await syncJobSchedulers(queues.tick, [{ name: 'dach', schedule: { every: '1h' } }]);

    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });

    const metrics = await fetch(`${server.url}/metrics`);
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await metrics.text();
    expect(text).toContain('prospect_sync_redis_up 1');
    expect(text).toContain('bullmq_job_count{queue="prospect-sync",state="waiting"} 1');
    expect(text).toContain('process_cpu_seconds_total');
    expect(text).toContain('prospect_sync_job_schedulers{queue="prospect-sync-ticks"} 1');
    expect(text.match(/^# TYPE bullmq_job_count gauge$/gm)).toHaveLength(1);

    // Completed runs are counted once a worker (with metrics on) has processed one.
    const worker = startSyncWorker({
      ctx: env.ctx,
      logger: silentLogger,
      processor: async (job) => ({ search: job.data.search, status: 'completed' }),
    });
    closers.push(() => worker.shutdown(5_000));
    await waitFor(async () => (await queues.sync.getJobCounts('completed')).completed === 1);
    const after = await (await fetch(`${server.url}/metrics`)).text();
    expect(after).toContain('bullmq_job_count{queue="prospect-sync",state="completed"} 1');
    expect(after).toContain('bullmq_job_completed_total{queue="prospect-sync"} 1');
    expect(after).toContain('bullmq_job_failed_total{queue="prospect-sync"} 0');
  });

  it(
    '/metrics requires auth by default; with Redis unreachable /healthz stays 200 and every other route answers ' +
      '503 at once',
    async () => {
      const { server } = await serve();
      expect((await fetch(`${server.url}/metrics`)).status).toBe(401);
      expect(
        (await fetch(`${server.url}/metrics`, { headers: { authorization: basic(AUTH.username, AUTH.password) } }))
          .status,
      ).toBe(200);

      const env = await queueEnv('dashboard-down');
      const queues = openQueues(env.ctx);
      closers.push(env.cleanup, queues.close);
      const dead = createRedis('redis://127.0.0.1:1', {
        lazyConnect: true,
        maxRetriesPerRequest: 0,
        retryStrategy: () => null,
      });
      closers.push(async () => dead.disconnect());
      const down = await startDashboardServer({
        queues: [queues.sync],
        redis: dead,
        port: 0,
        logger: silentLogger,
        searches: () => [{ name: 'dach' } as SavedSearch],
      });
      closers.push(down.close);
      const res = await fetch(`${down.url}/healthz`);
      expect(res.status).toBe(200);
      const ready = await fetch(`${down.url}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toMatchObject({ status: 'unavailable', checks: { redis: 'down' } });
      const metrics = await fetch(`${down.url}/metrics`);
      expect(metrics.status).toBe(503);
      expect(await metrics.text()).toContain('prospect_sync_redis_up 0');
      for (const path of ['/runs', '/runs/dach', '/rejects/dach', '/admin/queues/api/queues', '/api/runs/dach']) {
        const r = await fetch(`${down.url}${path}`, { signal: AbortSignal.timeout(20_000) });
        expect([path, r.status]).toEqual([path, 503]);
      }
    },
  );

  it(
    'run history as JSON at /api/runs/:search and /runs/:search unless the client asks for text/html; unknown ' +
      'search 404',
    async () => {
      const env = await queueEnv('dashboard-runs');
      const queues = openQueues(env.ctx);
      closers.push(env.cleanup, queues.close);
      const summary = (status: RunSummary['status'], runId: string): RunSummary => ({
        search: 'dach',
        status,
        ...emptyCounts(),
        durationMs: 1000,
        runId,
        startedAt: new Date().toISOString(),
        finishedAt: new Date().toISOString(),
        dryRun: false,
        partitions: 1,
      });
      await recordRun(env.ctx.connection, summary('partial', 'r1'), { prefix: env.ctx.prefix });
      await recordRun(env.ctx.connection, summary('completed', 'r2'), { prefix: env.ctx.prefix });
      const server = await startDashboardServer({
        queues: [queues.sync],
        redis: env.ctx.connection,
        prefix: env.ctx.prefix,
        port: 0,
        auth: AUTH,
        logger: silentLogger,
        searches: () => [{ name: 'dach', destination: 'crm' } as SavedSearch],
      });
      closers.push(server.close);
      const headers = { authorization: basic(AUTH.username, AUTH.password) };
      expect((await fetch(`${server.url}/api/runs/dach`)).status).toBe(401);
      const api = (await (await fetch(`${server.url}/api/runs/dach?limit=1`, { headers })).json()) as {
        search: string;
        runs: RunSummary[];
      };
      expect(api.runs.map((r) => r.runId)).toEqual(['r2']);
      const negotiated = await fetch(`${server.url}/runs/dach`, {
        headers: { ...headers, accept: 'application/json' },
      });
      expect(((await negotiated.json()) as { runs: RunSummary[] }).runs.map((r) => r.runId)).toEqual(['r2', 'r1']);
      const html = await fetch(`${server.url}/runs/dach`, { headers: { ...headers, accept: 'text/html' } });
      expect(html.headers.get('content-type')).toMatch(/html/);
      expect(await html.text()).toMatch(/partial[\s\S]*r1|completed/);
      expect((await fetch(`${server.url}/api/runs/nope`, { headers })).status).toBe(404);
      expect((await fetch(`${server.url}/runs/nope`, { headers })).status).toBe(404);
      // No Accept (curl, scripts): JSON as before.
      expect(
        ((await (await fetch(`${server.url}/runs/dach`, { headers })).json()) as { runs: unknown[] }).runs,
      ).toHaveLength(2);
    },
  );

  it('refuses to start without auth unless bound to loopback', async () => {
    const env = await queueEnv('dashboard-noauth');
    const queues = openQueues(env.ctx);
    closers.push(env.cleanup, queues.close);
    await expect(
      startDashboardServer({
        queues: [queues.sync],
        redis: env.ctx.connection,
        host: '0.0.0.0',
        port: 0,
        logger: silentLogger,
      }),
    ).rejects.toBeInstanceOf(DashboardAuthError);
    const local = await startDashboardServer({
      queues: [queues.sync],
      redis: env.ctx.connection,
      port: 0,
      logger: silentLogger,
    });
    closers.push(local.close);
    expect((await fetch(`${local.url}/runs`)).status).toBe(200);
  });
});
