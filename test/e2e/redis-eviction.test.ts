/**
 * A Redis that evicts keys is refused before any role starts: `worker` and `scheduler` exit 2 with the line that says
 * what to set, also where CONFIG is forbidden (managed Redis: the policy is read from INFO), and `validate --online`
 * reports it. Own redis-servers on free ports, stopped by PID.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../../src/shared/free-port.js';
import { redisAnswers } from '../../src/shared/redis.js';
import { COMPANY_SEARCH, hubspotConfig, startFixture, type Fixture } from '../jobs/sync-fixture.js';
import { fixtureCli } from './fixture-cli.js';
import { privateRedis } from '../queue/private-redis.js';

const servers: ChildProcess[] = [];
let fx: Fixture | undefined;
const cli = fixtureCli('eviction');

afterEach(async () => {
  for (const s of servers.splice(0)) if (s.pid) process.kill(s.pid, 'SIGKILL');
  await fx?.close();
  await cli.cleanup();
  fx = undefined;
});

async function redisServer(...args: string[]): Promise<string> {
  const port = await freePort();
  servers.push(
    spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', ...args], { stdio: 'ignore' }),
  );
  const url = `redis://127.0.0.1:${port}`;
  for (let i = 0; i < 100 && !(await redisAnswers(url, 500)); i++) await new Promise((r) => setTimeout(r, 100));
  return url;
}

const LINE = /Redis evicts keys \(maxmemory-policy allkeys-lru\): set maxmemory-policy noeviction/;

describe('Redis eviction policy checked at start', () => {
  it('worker and scheduler refuse allkeys-lru (also without CONFIG); validate --online says it', async () => {
    fx = await startFixture('eviction');
    const yaml = hubspotConfig(COMPANY_SEARCH);
    const lru = await redisServer('--maxmemory-policy', 'allkeys-lru');
    for (const role of ['worker', 'scheduler']) {
      const r = await cli.run(fx, yaml, [role], { REDIS_URL: lru });
      expect([role, r.code]).toEqual([role, 2]);
      expect(r.err).toMatch(LINE);
    }
    const managed = await redisServer('--maxmemory-policy', 'allkeys-lru', '--rename-command', 'CONFIG', '');
    const noConfig = await cli.run(fx, yaml, ['worker'], { REDIS_URL: managed });
    expect(noConfig.code).toBe(2);
    expect(noConfig.err).toMatch(LINE);

    const validate = await cli.run(fx, yaml, ['validate', '--online'], { REDIS_URL: lru });
    expect(validate.code).toBe(2);
    expect(validate.err).toMatch(LINE);
    const fine = await cli.run(fx, yaml, ['validate', '--online']);
    expect([fine.code, fine.err]).toEqual([0, '']);
  });

  it('worker started while Redis is away, which then comes evicting: stops with exit 2 and the line', async () => {
    fx = await startFixture('eviction-late');
    const late = await privateRedis('late-eviction-pw', ['--maxmemory-policy', 'allkeys-lru']);
    const yaml = hubspotConfig(COMPANY_SEARCH);
    const running = cli.run(fx, yaml, ['worker'], { REDIS_URL: late.url, LOG_LEVEL: 'info' });
    try {
      // the roles start meanwhile, as through any outage
      await new Promise((r) => setTimeout(r, 4_000));
      await late.start();
      const r = await running;
      expect(r.code).toBe(2);
      expect(r.out + r.err).toMatch(LINE);
    } finally {
      await late.destroy();
    }
  });

  it('run on a Redis out of memory (noeviction, maxmemory reached): exit 4, redis_unavailable', async () => {
    fx = await startFixture('oom');
    const full = await redisServer('--maxmemory', '1', '--maxmemory-policy', 'noeviction');
    const r = await cli.run(fx, hubspotConfig(COMPANY_SEARCH), ['run', 'all-companies', '--json'], {
      REDIS_URL: full,
    });
    expect(r.code).toBe(4);
    expect((r.last() as { error?: { code: string } }).error?.code).toBe('redis_unavailable');
  });
});
