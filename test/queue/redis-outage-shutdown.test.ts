/**
 * SIGTERM while Redis is down, with and without `alerts:` (whose queue listener has a connection of its own): the
 * process exits promptly (not at the 28 s forced exit), and no connection prints ioredis' raw "Unhandled error
 * event" lines. `scheduler` and `start` in a child process against a private redis-server the test stops under it.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { closeAfterEach } from '../helpers/closers.js';
import { cli, configYaml, searchYaml } from './cli-process.js';
import { privateRedis } from './private-redis.js';
import { waitFor } from './queue-env.js';

const PASSWORD = 'outage-shutdown-pw-2c9e';
const ALERTS = 'alerts:\n  webhook: {url: "${ALERT_WEBHOOK_URL}"}\n  evaluateEverySeconds: 1\n';

describe('SIGTERM during a Redis outage', () => {
  const closers = closeAfterEach();

  it.each([
    ['scheduler', 'with alerts', ALERTS],
    ['scheduler', 'without alerts', ''],
    ['start', 'with alerts', ALERTS],
  ])(
    '%s %s: exits 0 within 10 s, no raw ioredis lines',
    async (command, _name, alerts) => {
      const redis = await privateRedis(PASSWORD);
      closers.push(() => redis.destroy());
      await redis.start();
      const dir = await mkdtemp(join(tmpdir(), 'ps-outage-stop-'));
      closers.push(() => rm(dir, { recursive: true, force: true }));
      const configPath = join(dir, 'config.yaml');
      await writeFile(configPath, `${configYaml(searchYaml('dach', '{every: 1h}'))}${alerts}`);
      const child = cli([command, '--config', configPath], {
        REDIS_URL: redis.url,
        QUEUE_PREFIX: 'ps-outage-stop',
        LOG_LEVEL: 'info',
        ALERT_WEBHOOK_URL: 'http://127.0.0.1:9/hook',
      });
      closers.push(async () => {
        if (child.child.exitCode === null) {
          child.child.kill('SIGKILL');
          await child.exited;
        }
      });
      await waitFor(() => child.out().includes('"msg":"started"') || undefined, 30_000);
      // Leadership taken and, with alerts, the queue listener connected: every connection is in use when Redis goes.
      await new Promise((r) => setTimeout(r, 2_000));
      await redis.stop();
      await waitFor(() => child.out().includes('is unreachable') || undefined, 10_000);
      // Several reconnection attempts fail (an evaluation is due every second with alerts).
      await new Promise((r) => setTimeout(r, 4_000));

      const signalled = Date.now();
      child.child.kill('SIGTERM');
      const code = await child.exited;
      const tookMs = Date.now() - signalled;
      expect(child.err()).not.toContain('[ioredis]');
      expect(child.err()).not.toContain('Unhandled error event');
      expect(child.out() + child.err()).not.toContain(PASSWORD);
      expect(code).toBe(0);
      expect(tookMs).toBeLessThan(10_000);
    },
    90_000,
  );
});
