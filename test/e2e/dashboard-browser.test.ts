import { existsSync } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { enqueueRun, openQueues } from '../../src/queue/index.js';
import { startDashboardServer } from '../../src/server/index.js';
import { silentLogger } from '../../src/shared/logger.js';
import { queueEnv } from '../queue/queue-env.js';
import { closeAfterEach } from '../helpers/closers.js';

const CHROMIUM = '/usr/bin/chromium';
// In CI a missing browser is a failure (CI installs it); locally the test is skipped.
const run = existsSync(CHROMIUM) || process.env.CI === 'true' ? it : it.skip;

describe('dashboard in a real browser', () => {
  const closers = closeAfterEach();

  run('loads bull-board at /admin/queues behind basic auth, shows the queues and a queued run, and screenshots it', async () => {
    const env = await queueEnv('dashboard-browser');
    const queues = openQueues(env.ctx);
    closers.push(env.cleanup, queues.close);
    await enqueueRun(queues.sync, 'dach-software', 'manual');
    const auth = { username: 'ops', password: 'browser-pass' };
    const server = await startDashboardServer({ queues: [queues.sync, queues.tick], redis: env.ctx.connection, port: 0, auth, logger: silentLogger });
    closers.push(server.close);
    const dir = await mkdtemp(join(tmpdir(), 'ps-dashboard-'));
    closers.push(() => rm(dir, { recursive: true, force: true }));

    const browser: Browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
        '--disable-component-update', '--disable-sync'],
    });
    closers.push(() => browser.close());

    // Without credentials the server challenges.
    const anonymous = await browser.newContext();
    const denied = await anonymous.request.get(`${server.url}/admin/queues`);
    expect(denied.status()).toBe(401);
    await anonymous.close();

    const context = await browser.newContext({ httpCredentials: auth });
    const page = await context.newPage();
    const response = await page.goto(`${server.url}/admin/queues`);
    expect(response?.status()).toBe(200);
    await page.getByText('prospect-sync-ticks').first().waitFor({ timeout: 20_000 });
    await page.goto(`${server.url}/admin/queues/queue/prospect-sync?status=waiting`);
    await page.getByText('sync', { exact: true }).first().waitFor({ timeout: 20_000 });
    const shot = join(dir, 'dashboard.png');
    await page.screenshot({ path: shot, fullPage: true });
    expect((await stat(shot)).size).toBeGreaterThan(5_000);
    await context.close();
  });
});
