/**
 * The README's test command on a machine without a running Redis: it starts a private redis-server (and stops it)
 * when one is installed, and otherwise stops at once saying what to install, instead of hanging on reconnects.
 */
import { spawnSync } from 'node:child_process';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { freePort } from '../src/shared/free-port.js';
import { redisAnswers } from '../src/shared/redis.js';
import { findSuiteRedis, NoRedisForTestsError } from './suite-redis.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const VITEST = fileURLToPath(new URL('../node_modules/vitest/vitest.mjs', import.meta.url));

const closedUrl = async (): Promise<string> => `redis://127.0.0.1:${await freePort()}`;

describe('the Redis the test suite uses', () => {
  it('the test command against a closed REDIS_URL stops before any test file, naming the URL', async () => {
    const url = `redis://:s3cret-pw@127.0.0.1:${await freePort()}/7`;
    // a file that needs no Redis: without the setup it would pass, and a suite would go on to hang
    const run = spawnSync(process.execPath, [VITEST, 'run', 'test/shared/redact.test.ts'], {
      cwd: ROOT,
      env: { ...process.env, REDIS_URL: url, CI: '1' },
      encoding: 'utf8',
      timeout: 90_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`none answers at REDIS_URL=redis://127.0.0.1:${new URL(url).port}/7`);
    expect(run.stderr + run.stdout).not.toContain('s3cret-pw');
    expect(run.stdout).not.toContain('redact.test.ts');
  }, 120_000);

  it('without a Redis and without redis-server on PATH it says what to install', async () => {
    const error = await findSuiteRedis({ PATH: dirname(process.execPath) }, await closedUrl()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NoRedisForTestsError);
    expect((error as Error).message).toContain('redis-server is not installed');
    expect((error as Error).message).toContain('apt-get install redis-server');
  });

  it('without a Redis but with redis-server installed it starts a private one, and stops it afterwards', async () => {
    const redis = await findSuiteRedis({ PATH: process.env.PATH }, await closedUrl());
    try {
      expect(redis.origin).toBe('private');
      expect(await redisAnswers(redis.url)).toBe(true);
    } finally {
      await redis.stop();
    }
    expect(await redisAnswers(redis.url, 500)).toBe(false);
  });

  it('uses REDIS_URL when it answers, and the default Redis when REDIS_URL is unset and it answers', async () => {
    const url = process.env.REDIS_URL as string;
    expect(await findSuiteRedis({ REDIS_URL: url }, await closedUrl())).toMatchObject({ url, origin: 'REDIS_URL' });
    expect(await findSuiteRedis({}, url)).toMatchObject({ url, origin: 'default' });
  });
});
