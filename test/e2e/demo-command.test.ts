/** `prospect-sync demo` as the README's first command runs it: no TTY, so it must end by itself. */
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../queue/cli-process.js';

describe('demo command', () => {
  it('runs the example search into the emulated HubSpot and exits 0 on a non-TTY', async () => {
    const c = cli(['demo'], { LOG_LEVEL: 'silent' });
    expect(await c.exited).toBe(0);
    const out = c.out();
    expect(out).toMatch(/dashboard: http:\/\/127\.0\.0\.1:\d+/);
    expect(out).toMatch(/dach-software: completed/);
    const held = /(\d+) companies landed in the emulated HubSpot/.exec(out);
    const created = /created (\d+)/.exec(out);
    // the demo data size: the example search brings a few hundred records, not a handful
    expect(Number(held?.[1])).toBeGreaterThan(200);
    expect(Number(held?.[1])).toBe(Number(created?.[1]));
  }, 60_000);

  it('starts a private redis-server when none answers at $REDIS_URL', async () => {
    const c = cli(['demo', '--once'], { LOG_LEVEL: 'silent', REDIS_URL: 'redis://127.0.0.1:1' });
    expect(await c.exited).toBe(0);
    expect(c.out()).toMatch(/started a private redis-server at redis:\/\/127\.0\.0\.1:\d+/);
    expect(c.out()).toMatch(/dach-software: completed/);
  }, 60_000);

  it('says exactly what to install when there is no Redis and no redis-server', async () => {
    const c = cli(['demo', '--once'], {
      LOG_LEVEL: 'silent',
      REDIS_URL: 'redis://127.0.0.1:1',
      PATH: dirname(process.execPath),
    });
    expect(await c.exited).toBe(1);
    expect(c.err()).toContain('apt-get install redis-server');
    expect(c.err()).toContain('brew install redis');
  }, 30_000);
});
