/**
 * The operator's cockpit in headless Chromium after real runs against the emulators (real Redis, real HubSpot client,
 * real worker): every page fits 1280 px without horizontal scrolling and passes axe-core without a serious or critical
 * violation at 1280 x 800 and 390 x 844; "Run now" and "Full resync" queue a run that a worker runs and the history
 * shows with its trigger; a cross-origin form post and a post without the CSRF token are refused; read-only mode has
 * no buttons. Screenshots go to .ci/out/screenshots; UPDATE_SCREENSHOTS=1 also refreshes docs/img/cockpit-*.png.
 */
import { existsSync } from 'node:fs';
import { copyFile, mkdir } from 'node:fs/promises';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { createSyncProcessor, syncSearch } from '../../jobs/sync-search.js';
import { swapAlertState } from '../../src/alerts/alert-state.js';
import type { AppConfig } from '../../src/config/index.js';
import { openQueues, startSyncWorker, syncJobSchedulers, type AppQueues } from '../../src/queue/index.js';
import { listRuns } from '../../src/runs/run-history.js';
import { startDashboardServer, type DashboardServer } from '../../src/server/index.js';
import { createRedis } from '../../src/shared/redis.js';
import { silentLogger } from '../../src/shared/logger.js';
import { hubspotConfig, startFixture, type Fixture } from '../jobs/sync-fixture.js';
import { CHROMIUM, PAGE_SEARCHES, ROOT, runBrowser, SHOTS } from './browser-env.js';
import { waitFor } from '../queue/queue-env.js';

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const AUTH = { username: 'ops', password: 'cockpit-pass-1' };
const SIZES = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;

describe('the cockpit in a real browser', () => {
  let fx: Fixture;
  let config: AppConfig;
  let queues: AppQueues;
  let server: DashboardServer;
  let readOnly: DashboardServer;
  let browser: Browser;
  const closers: (() => Promise<unknown>)[] = [];

  beforeAll(async () => {
    fx = await startFixture('cockpit', { account: { tokenAllotment: 1_000_000 } });
    closers.push(() => fx.close());
    config = fx.config(hubspotConfig(PAGE_SEARCHES, '  credits: {maxPerRun: 5000, maxPerDay: 5000}'));
    const connection = createRedis(process.env.REDIS_URL);
    closers.push(async () => connection.disconnect());
    queues = openQueues({ connection, prefix: fx.prefix });
    closers.push(() => queues.close());
    await syncJobSchedulers(queues.tick, config.searches);
    // A history to chart: people before and after their companies landed (link errors, then fewer), companies again.
    await syncSearch(fx.deps(config), { search: 'linked-people', runId: 'people-1', trigger: 'schedule' });
    await syncSearch(fx.deps(config), { search: 'small-companies', runId: 'companies-1', trigger: 'schedule' });
    await syncSearch(fx.deps(config), { search: 'linked-people', runId: 'people-2', trigger: 'schedule' });
    await syncSearch(fx.deps(config), { search: 'small-companies', runId: 'companies-2', trigger: 'manual' });
    // What the alert evaluator records for a rule that fires.
    await swapAlertState(fx.redis, fx.prefix, 'run_warnings:linked-people', true, 60_000);
    const worker = startSyncWorker({
      ctx: { connection, prefix: fx.prefix },
      logger: silentLogger,
      processor: createSyncProcessor({ ...fx.deps(config) }),
    });
    closers.push(() => worker.shutdown(5_000));
    const common = {
      queues: [queues.sync, queues.tick],
      redis: connection,
      prefix: fx.prefix,
      port: 0,
      auth: AUTH,
      logger: silentLogger,
      searches: () => config.searches,
      creditCaps: () => config.source.credits,
    };
    server = await startDashboardServer({ ...common, runActions: true });
    closers.push(() => server.close());
    readOnly = await startDashboardServer(common);
    closers.push(() => readOnly.close());
    if (existsSync(CHROMIUM)) {
      browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
          '--no-first-run',
        ],
      });
      closers.push(() => browser.close());
    }
    await mkdir(SHOTS, { recursive: true });
  }, 180_000);

  afterAll(async () => {
    for (const close of closers.reverse()) await close();
  });

  const open = async (size: keyof typeof SIZES): Promise<Page> => {
    // bypassCSP: axe-core is injected as a script the pages' policy would refuse
    const context = await browser.newContext({ httpCredentials: AUTH, viewport: SIZES[size], bypassCSP: true });
    closers.push(() => context.close());
    return context.newPage();
  };

  /** axe-core's serious and critical violations of the page (rule id: the first offending element). */
  const axeViolations = async (page: Page): Promise<string[]> => {
    await page.addScriptTag({ path: AXE });
    const found = await page.evaluate(async () => {
      const axe = (
        globalThis as unknown as {
          axe: { run(): Promise<{ violations: { id: string; impact: string; nodes: { html: string }[] }[] }> };
        }
      ).axe;
      return (await axe.run()).violations;
    });
    return found
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${v.nodes[0]?.html ?? ''}`);
  };

  const PAGES = [
    ['runs', '/runs'],
    ['search', '/runs/linked-people'],
    ['rejects', '/rejects/linked-people'],
  ] as const;

  runBrowser(
    'every page: no horizontal overflow at 1280 px, no serious accessibility violation at 1280 and 390 px; screenshots',
    async () => {
      for (const size of ['desktop', 'phone'] as const) {
        const page = await open(size);
        for (const [name, path] of PAGES) {
          expect((await page.goto(`${server.url}${path}`))?.status()).toBe(200);
          if (size === 'desktop') {
            const overflow = await page.evaluate<number>('document.scrollingElement.scrollWidth - window.innerWidth');
            expect(overflow, `${path} overflows by ${overflow} px`).toBeLessThanOrEqual(0);
          }
          expect([path, size, await axeViolations(page)]).toEqual([path, size, []]);
          const file = `cockpit-${name}-${SIZES[size].width}.png`;
          // the rejects page lists 100 rows: its first screen shows what matters (a full page would be megabytes)
          await page.screenshot({ path: join(SHOTS, file), fullPage: name !== 'rejects' });
          if (process.env.UPDATE_SCREENSHOTS === '1')
            await copyFile(join(SHOTS, file), join(ROOT, 'docs', 'img', file));
        }
      }
    },
    120_000,
  );

  runBrowser(
    'the overview shows the budget, state apart from the last result, sparklines and the alert in force',
    async () => {
      const page = await open('desktop');
      await page.goto(`${server.url}/runs`);
      const budget = await page.locator('section[aria-label="Budget"]').textContent();
      expect(budget).toMatch(/left of 1,000,000/);
      expect(budget).toMatch(/Resets in \d+/);
      expect(budget).toMatch(/of 5,000 today/);
      const people = page.locator('tr', { hasText: 'linked-people' });
      expect(await people.locator('td[data-label="Now"]').textContent()).toBe('idle');
      expect(await people.locator('td[data-label="Last result"]').textContent()).toContain('completed with');
      expect(await people.locator('svg.spark').count()).toBe(2);
      expect(await people.locator('svg.spark title').first().textContent()).toMatch(/over 2 runs$/);
      expect(await page.locator('#alerts').textContent()).toContain('run_warnings · linked-people');
      // bull-board links back to the runs
      await page.goto(`${server.url}/admin/queues`);
      await page.getByText('prospect-sync-ticks').first().waitFor({ timeout: 20_000 });
      // its header menu lists the links of its uiConfig
      const ui = JSON.parse((await page.locator('#__UI_CONFIG__').textContent()) ?? '{}') as {
        miscLinks?: { url: string }[];
      };
      expect(ui.miscLinks?.map((l) => l.url)).toContain('/runs');
    },
    60_000,
  );

  runBrowser(
    'keyboard: Tab reaches the links and the Run now buttons in reading order, with a visible focus ring',
    async () => {
      const page = await open('desktop');
      await page.goto(`${server.url}/runs`);
      const reached: string[] = [];
      for (let i = 0; i < 20; i++) {
        await page.keyboard.press('Tab');
        const focused = await page.evaluate<{
          label: string;
          outline: string;
        } | null>(
          `(() => { const e = document.activeElement;
        if (!e || e === document.body) return null; // past the last stop
        return { label: e.getAttribute('aria-label') || e.textContent.trim(), outline: ` +
            `getComputedStyle(e).outlineStyle }; })()`,
        );
        if (!focused) break;
        expect([focused.label, focused.outline]).toEqual([focused.label, 'solid']);
        reached.push(focused.label);
      }
      expect(reached.slice(0, 3)).toEqual(['Runs', 'Queues (bull-board)', 'Metrics']);
      const run = reached.indexOf('Run now: small-companies');
      expect(run).toBeGreaterThan(reached.indexOf('small-companies'));
      expect(reached.indexOf('Run now: linked-people')).toBeGreaterThan(run);
    },
    60_000,
  );

  runBrowser(
    'Run now on the overview and Full resync on the search page queue a run; the worker runs it; the history ' +
      'shows the trigger',
    async () => {
      const page = await open('desktop');
      await page.goto(`${server.url}/runs`);
      await page.getByRole('button', { name: 'Run now: small-companies' }).click();
      const queued = await page.locator('#queued').textContent();
      expect(queued).toMatch(
        new RegExp(
          String.raw`^Run of small-companies queued\. Job [0-9a-f-]{36}, (place 1 in the waiting list|state: ` +
            String.raw`(active|completed))\.$`,
        ),
      );
      const jobId = /Job ([0-9a-f-]{36})/.exec(queued ?? '')?.[1] ?? '';
      const run = await waitFor(
        async () =>
          (await listRuns(fx.redis, 'small-companies', { prefix: fx.prefix, limit: 1 })).find((r) => r.runId === jobId),
        60_000,
      );
      expect(run).toMatchObject({ status: 'completed', trigger: 'manual' });
      expect(run.fullResync).toBeUndefined();

      await page.goto(`${server.url}/runs/small-companies`);
      const first = page.locator('tbody tr').first();
      expect(await first.locator('td[data-label="Run id"] code').getAttribute('title')).toBe(jobId);
      expect(await first.locator('td[data-label="Trigger"]').textContent()).toBe('manual');

      await page.getByRole('button', { name: 'Full resync: small-companies' }).click();
      const resync = /Job ([0-9a-f-]{36})/.exec((await page.locator('#queued').textContent()) ?? '')?.[1] ?? '';
      const again = await waitFor(
        async () =>
          (await listRuns(fx.redis, 'small-companies', { prefix: fx.prefix, limit: 1 })).find(
            (r) => r.runId === resync,
          ),
        60_000,
      );
      expect(again).toMatchObject({ status: 'completed', trigger: 'manual', fullResync: true });
      // every record was sent again although unchanged since the last run
      expect(again.unchanged).toBe(0);
      await page.goto(`${server.url}/runs/small-companies`);
      expect(await page.locator('tbody tr').first().locator('td[data-label="Trigger"]').textContent()).toBe(
        'full resync',
      );
    },
    150_000,
  );

  runBrowser(
    'a cross-origin form post and a post without the CSRF token are refused; read-only mode has no buttons',
    async () => {
      const attacker = createServer((_req, res) => {
        res.setHeader('content-type', 'text/html');
        res.end('<!doctype html><title>attacker</title>');
      });
      await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
      closers.push(() => new Promise((resolve) => attacker.close(resolve)));
      const attackerUrl = `http://localhost:${(attacker.address() as AddressInfo).port}`;
      const before = await queues.sync.count();
      const page = await open('desktop');
      await page.goto(`${server.url}/runs`); // the victim holds a session cookie and cached credentials
      const token = await page.locator('input[name="csrf"]').first().getAttribute('value');
      expect(token).toMatch(/^[0-9a-f]{64}$/);

      const evil = await page.context().newPage();
      await evil.goto(attackerUrl);
      const target = `${server.url}/runs/small-companies/run`;
      const crossSite = await evil.request.post(target, {
        headers: { origin: attackerUrl, 'sec-fetch-site': 'cross-site' },
        form: { csrf: token ?? '' },
      });
      expect(crossSite.status()).toBe(403);
      // A real form submitted from the attacker's page, carrying the stolen token: refused too.
      await evil.setContent(`<form method="post" action="${target}"><input name="csrf" value="${token}"></form>`);
      const [answer] = await Promise.all([evil.waitForResponse(target), evil.evaluate('document.forms[0].submit()')]);
      expect(answer.status()).toBe(403);
      // Same origin, but no token (or a wrong one): refused.
      const noToken = await page.evaluate(
        async (url) =>
          (
            await fetch(url, {
              method: 'POST',
              headers: { 'content-type': 'application/x-www-form-urlencoded' },
              body: 'csrf=' + 'a'.repeat(64),
            })
          ).status,
        target,
      );
      expect(noToken).toBe(403);
      expect(await queues.sync.count()).toBe(before);

      const ro = await open('desktop');
      await ro.goto(`${readOnly.url}/runs`);
      expect(await ro.locator('button').count()).toBe(0);
      await ro.goto(`${readOnly.url}/runs/small-companies`);
      expect(await ro.locator('form').count()).toBe(0);
      const posted = await ro.evaluate(
        async (url) =>
          (
            await fetch(url, {
              method: 'POST',
              headers: { 'content-type': 'application/x-www-form-urlencoded' },
              body: 'csrf=x',
            })
          ).status,
        `${readOnly.url}/runs/small-companies/run`,
      );
      expect(posted).toBeGreaterThanOrEqual(400);
      expect(await queues.sync.count()).toBe(before);
    },
    60_000,
  );
});
