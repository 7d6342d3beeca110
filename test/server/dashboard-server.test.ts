import { describe, expect, it } from 'vitest';
import { enqueueRun, openQueues, startSyncWorker, syncJobSchedulers } from '../../src/queue/index.js';
import { DashboardAuthError, mergePrometheusText, startDashboardServer } from '../../src/server/index.js';
import { createRedis } from '../../src/shared/redis.js';
import { silentLogger } from '../../src/shared/logger.js';
import { queueEnv, waitFor } from '../queue/queue-env.js';
import { closeAfterEach } from '../helpers/closers.js';

const AUTH = { username: 'ops', password: 's3cret-pass' };
const basic = (u: string, p: string): string => `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`;

describe('dashboard server', () => {
  const closers = closeAfterEach();

  async function serve(extra: { metricsAuth?: boolean; readOnly?: boolean | string[] } = {}) {
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
    expect((await fetch(`${server.url}/`, { headers: { authorization: basic('nobody', AUTH.password) } })).status).toBe(401);
    const ok = await fetch(`${server.url}/`, { headers: { authorization: basic(AUTH.username, AUTH.password) } });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toMatch(/<html/i);
    const api = await fetch(`${server.url}/api/queues`);
    expect(api.status).toBe(401);
  });

  it('lists both queues through the bull-board API, read-only where configured', async () => {
    const { server } = await serve({ readOnly: ['prospect-sync'] });
    const res = await fetch(`${server.url}/api/queues?activeQueue=prospect-sync&status=latest&page=1`, {
      headers: { authorization: basic(AUTH.username, AUTH.password) },
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { queues: { name: string; readOnlyMode: boolean }[] };
    const byName = Object.fromEntries(body.queues.map((q) => [q.name, q.readOnlyMode]));
    expect(byName).toEqual({ 'prospect-sync': true, 'prospect-sync-ticks': false });
  });

  it('/healthz needs no auth and reflects Redis; /metrics is Prometheus text with queue counts', async () => {
    const { server, queues, env } = await serve();
    await enqueueRun(queues.sync, 'dach', 'manual');
    await syncJobSchedulers(queues.tick, [{ name: 'dach', schedule: { every: '1h' } }]);

    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok', redis: 'up' });

    const metrics = await fetch(`${server.url}/metrics`);
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await metrics.text();
    expect(text).toContain('prospect_sync_redis_up 1');
    expect(text).toContain('bullmq_job_count{queue="prospect-sync", state="waiting"} 1');
    expect(text).toContain('prospect_sync_job_schedulers{queue="prospect-sync-ticks"} 1');
    expect(text.match(/^# TYPE bullmq_job_count gauge$/gm)).toHaveLength(1);

    // Completed runs are counted once a worker (with metrics on) has processed one.
    const worker = startSyncWorker({ ctx: env.ctx, logger: silentLogger, processor: async (job) => ({ search: job.data.search, status: 'completed' }) });
    closers.push(() => worker.shutdown(5_000));
    await waitFor(async () => (await queues.sync.getJobCounts('completed')).completed === 1);
    const after = await (await fetch(`${server.url}/metrics`)).text();
    expect(after).toContain('bullmq_job_completed_total{queue="prospect-sync"} 1');
  });

  it('/metrics can require auth; /healthz answers 503 when Redis is unreachable', async () => {
    const { server } = await serve({ metricsAuth: true });
    expect((await fetch(`${server.url}/metrics`)).status).toBe(401);
    expect((await fetch(`${server.url}/metrics`, { headers: { authorization: basic(AUTH.username, AUTH.password) } })).status).toBe(200);

    const env = await queueEnv('dashboard-down');
    const queues = openQueues(env.ctx);
    closers.push(env.cleanup, queues.close);
    const dead = createRedis('redis://127.0.0.1:1', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    closers.push(async () => dead.disconnect());
    const down = await startDashboardServer({ queues: [queues.sync], redis: dead, port: 0, logger: silentLogger });
    closers.push(down.close);
    const res = await fetch(`${down.url}/healthz`);
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ status: 'unavailable', redis: 'down' });
    expect((await fetch(`${down.url}/metrics`)).status).toBe(503);
  });

  it('/runs/:search serves run history as JSON behind auth; unknown search 404', async () => {
    const env = await queueEnv('dashboard-runs');
    const queues = openQueues(env.ctx);
    closers.push(env.cleanup, queues.close);
    const history: Record<string, unknown[]> = { dach: [{ search: 'dach', status: 'completed' }, { search: 'dach', status: 'partial' }] };
    const asked: number[] = [];
    const server = await startDashboardServer({
      queues: [queues.sync],
      redis: env.ctx.connection,
      port: 0,
      auth: AUTH,
      logger: silentLogger,
      runs: async (search, limit) => {
        asked.push(limit);
        return history[search]?.slice(0, limit);
      },
    });
    closers.push(server.close);
    const headers = { authorization: basic(AUTH.username, AUTH.password) };
    expect((await fetch(`${server.url}/runs/dach`)).status).toBe(401);
    const res = await fetch(`${server.url}/runs/dach?limit=1`, { headers });
    expect(await res.json()).toEqual({ search: 'dach', runs: [{ search: 'dach', status: 'completed' }] });
    expect((await fetch(`${server.url}/runs/nope`, { headers })).status).toBe(404);
    await fetch(`${server.url}/runs/dach?limit=100000`, { headers });
    expect(asked).toEqual([1, 20, 200]);
  });

  it('refuses to start without auth unless bound to loopback', async () => {
    const env = await queueEnv('dashboard-noauth');
    const queues = openQueues(env.ctx);
    closers.push(env.cleanup, queues.close);
    await expect(
      startDashboardServer({ queues: [queues.sync], redis: env.ctx.connection, host: '0.0.0.0', port: 0, logger: silentLogger }),
    ).rejects.toBeInstanceOf(DashboardAuthError);
    const local = await startDashboardServer({ queues: [queues.sync], redis: env.ctx.connection, port: 0, logger: silentLogger });
    closers.push(local.close);
    expect((await fetch(`${local.url}/`)).status).toBe(200);
  });

  it('merges expositions so each family is declared once', () => {
    const a = '# HELP m x\n# TYPE m gauge\nm{q="a"} 1\n# TYPE n counter\nn 2';
    const b = '# HELP m x\n# TYPE m gauge\nm{q="b"} 3';
    expect(mergePrometheusText([a, b])).toBe('# HELP m x\n# TYPE m gauge\nm{q="a"} 1\nm{q="b"} 3\n# TYPE n counter\nn 2\n');
  });
});
