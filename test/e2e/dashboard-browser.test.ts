import { mkdtemp, rm, stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { describe, expect } from 'vitest';
import { enqueueRun, openQueues } from '../../src/queue/index.js';
import { startDashboardServer } from '../../src/server/index.js';
import { silentLogger } from '../../src/shared/logger.js';
import { queueEnv } from '../queue/queue-env.js';
import { closeAfterEach } from '../helpers/closers.js';
import { CHROMIUM, runBrowser } from './browser-env.js';

// In CI a missing browser is a failure (CI installs it); locally the test is skipped.
const run = runBrowser;

describe('dashboard in a real browser', () => {
  const closers = closeAfterEach();

  run(
    'loads bull-board at /admin/queues behind basic auth, shows the queues and a queued run, and screenshots it',
    async () => {
      const env = await queueEnv('dashboard-browser');
      const queues = openQueues(env.ctx);
      closers.push(env.cleanup, queues.close);
      await enqueueRun(queues.sync, 'dach-software', 'manual');
      const auth = { username: 'ops', password: 'browser-pass' };
      const server = await startDashboardServer({
        queues: [queues.sync, queues.tick],
        redis: env.ctx.connection,
        port: 0,
        auth,
        logger: silentLogger,
      });
      closers.push(server.close);
      const dir = await mkdtemp(join(tmpdir(), 'ps-dashboard-'));
      closers.push(() => rm(dir, { recursive: true, force: true }));

      const browser: Browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--disable-quic',
          '--no-first-run',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
        ],
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
    },
  );
  run(
    'the board renders under its Content-Security-Policy, acts same-origin with adminActions, and a cross-site ' +
      'page cannot act',
    async () => {
      const env = await queueEnv('dashboard-browser-csp');
      const queues = openQueues(env.ctx);
      closers.push(env.cleanup, queues.close);
      const auth = { username: 'ops', password: 'browser-pass' };
      const server = await startDashboardServer({
        queues: [queues.sync, queues.tick],
        redis: env.ctx.connection,
        port: 0,
        auth,
        adminActions: true,
        logger: silentLogger,
      });
      closers.push(server.close);
      // A page on another origin (another port) that posts a "simple" text/plain request to the board.
      const attacker = createServer((_req, res) => {
        res.setHeader('content-type', 'text/html');
        res.end('<!doctype html><title>attacker</title>');
      });
      await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
      closers.push(() => new Promise((resolve) => attacker.close(resolve)));
      const attackerUrl = `http://localhost:${(attacker.address() as AddressInfo).port}`;

      const browser: Browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--disable-quic',
          '--no-first-run',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
        ],
      });
      closers.push(() => browser.close());
      const context = await browser.newContext({ httpCredentials: auth });
      const page = await context.newPage();
      const violations: string[] = [];
      page.on('console', (msg) => {
        if (/Content Security Policy/i.test(msg.text())) violations.push(msg.text());
      });
      const response = await page.goto(`${server.url}/admin/queues`);
      expect(response?.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
      await page.getByText('prospect-sync-ticks').first().waitFor({ timeout: 20_000 });
      // Only bull-board's third-party font stylesheet is refused; its scripts and styles run.
      expect(violations.filter((v) => !v.includes('fonts.googleapis.com'))).toEqual([]);

      // What bull-board's own buttons send: a bodyless PUT from its page (same origin).
      const paused = await page.evaluate(
        async () => (await fetch('api/queues/prospect-sync-ticks/pause', { method: 'PUT' })).status,
      );
      expect(paused).toBe(200);
      expect(await queues.tick.isPaused()).toBe(true);

      const evil = await context.newPage();
      await evil.goto(attackerUrl);
      await evil.evaluate(async (target) => {
        await fetch(target, {
          method: 'POST',
          mode: 'no-cors',
          credentials: 'include',
          headers: { 'content-type': 'text/plain' },
          body: JSON.stringify({ name: 'sync', data: { search: 'x' } }),
        }).catch(() => undefined);
      }, `${server.url}/admin/queues/api/queues/prospect-sync/add`);
      const direct = await evil.request.post(`${server.url}/admin/queues/api/queues/prospect-sync/add`, {
        headers: { 'content-type': 'text/plain', origin: attackerUrl },
        data: '{"name":"sync","data":{}}',
      });
      expect(direct.status()).toBe(403);
      expect(await queues.sync.count()).toBe(0);
      await context.close();
    },
  );
});
