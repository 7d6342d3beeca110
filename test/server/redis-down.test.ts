/**
 * A real Redis dies under a running dashboard (own redis-server on a free port, stopped by PID): every route
 * answers 503 with a reason within a bounded time instead of hanging (bull-board's API used to hang 600 s), /healthz
 * stays 200, and everything answers again once Redis is back.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { SavedSearch } from '../../src/config/index.js';
import { openQueues } from '../../src/queue/index.js';
import { startDashboardServer } from '../../src/server/index.js';
import { freePort } from '../../src/shared/free-port.js';
import { createRedis } from '../../src/shared/redis.js';
import { silentLogger } from '../../src/shared/logger.js';
import { closeAfterEach } from '../helpers/closers.js';
import { waitFor } from '../queue/queue-env.js';

function startRedis(port: number): ChildProcess {
  return spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  });
}

describe('dashboard with Redis going down', () => {
  const closers = closeAfterEach();

  it('answers 503 within a bounded time on every Redis-backed route, 200 on /healthz, and recovers', async () => {
    const port = await freePort();
    let redisProcess = startRedis(port);
    closers.push(async () => redisProcess.kill('SIGKILL'));
    // Worker-grade connection, as start.ts uses: maxRetriesPerRequest null (commands wait for the reconnect).
    const connection = createRedis(`redis://127.0.0.1:${port}`);
    closers.push(async () => connection.disconnect());
    await waitFor(async () => (await connection.ping().catch(() => '')) === 'PONG', 10_000);
    const queues = openQueues({ connection, prefix: 'ps-down' });
    closers.push(() => queues.close().catch(() => undefined));
    const auth = { username: 'ops', password: 'down-pass' };
    const server = await startDashboardServer({
      queues: [queues.sync, queues.tick],
      redis: connection,
      prefix: 'ps-down',
      port: 0,
      auth,
      logger: silentLogger,
      timeoutMs: 500,
      searches: () => [{ name: 'dach', destination: 'crm' } as SavedSearch],
    });
    closers.push(server.close);
    const headers = { authorization: `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}` };
    const paths = [
      '/runs',
      '/runs/dach',
      '/api/runs/dach',
      '/rejects/dach',
      '/rejects/dach.csv',
      '/admin/queues/api/queues',
      '/metrics',
      '/readyz',
    ];
    const statuses = async (): Promise<[string, number][]> =>
      Promise.all(
        paths.map(
          async (p) =>
            [p, (await fetch(`${server.url}${p}`, { headers, signal: AbortSignal.timeout(30_000) })).status] as [
              string,
              number,
            ],
        ),
      );
    expect((await statuses()).filter(([, s]) => s !== 200)).toEqual([]);

    redisProcess.kill('SIGKILL');
    await new Promise((resolve) => redisProcess.once('exit', resolve));
    // A hang fails on the 30 s abort above; each route must answer 503.
    expect(await statuses()).toEqual(paths.map((p) => [p, 503]));
    const metrics = await (await fetch(`${server.url}/metrics`, { headers })).text();
    expect(metrics).toContain('prospect_sync_redis_up 0');
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);

    redisProcess = startRedis(port);
    await waitFor(async () => (await statuses()).every(([, s]) => s === 200), 20_000);
  }, 90_000);
});
