/**
 * The search page with the widest history (every optional figure: links, mirror and list figures, refresh, dry runs,
 * an error) fits 1280 px in headless Chromium: no horizontal scrolling, the history table's right edge in view.
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import type { SavedSearch } from '../../src/config/index.js';
import type { RunSummary } from '../../src/runs/run-summary.js';
import { recordRun } from '../../src/runs/run-history.js';
import { startDashboardServer, type DashboardServer } from '../../src/server/index.js';
import { createRedis } from '../../src/shared/redis.js';
import { silentLogger } from '../../src/shared/logger.js';
import { CHROMIUM, runBrowser, SHOTS } from './browser-env.js';

const AUTH = { username: 'ops', password: 'cockpit-pass-1' };
const SEARCH = {
  name: 'widest-people',
  destination: 'crm',
  entity: 'persons',
  list: { name: 'DACH software leaders' },
  after: ['widest-companies'],
} as SavedSearch;

/** A run carrying every figure the history can show, with wide numbers. */
const widest = (i: number, extra: Partial<RunSummary> = {}): RunSummary =>
  ({
    search: 'widest-people',
    status: 'completed',
    counted: 1_234_567,
    fetched: 1_234_567,
    unique: 1_234_567,
    created: 123_456,
    updated: 234_567,
    unchanged: 876_543,
    rejected: 12_345,
    tokensSpent: 1_234_567,
    creditsSpent: 123_456,
    requests: { search: 12_345, count: 1_234 },
    throttled: 1_234,
    durationMs: 12_345_678,
    runId: `${randomUUID()}`,
    startedAt: new Date(Date.UTC(2026, 10, 1 + i, 5, 0, 0)).toISOString(),
    finishedAt: new Date(Date.UTC(2026, 10, 1 + i, 8, 25, 45)).toISOString(),
    dryRun: false,
    partitions: 123,
    trigger: 'schedule',
    linkErrors: 1_234,
    links: { company: { linked: 123_456, linkFailed: 1_234 } },
    warnings: { count: 1_234, first: ['link failed: company 9f8e7d6c-5b4a-3210-fedc-ba9876543210 is not in HubSpot'] },
    entered: 123_456,
    left: 12_345,
    leaveActions: 12_345,
    leaversPending: 1_234,
    listAdded: 123_456,
    listRemoved: 12_345,
    refresh: {
      mode: 'changed',
      kept: 1_234,
      walked: { changed: 123, new: 0, stale: 45 },
      skipped: 1_066,
      counts: 1_234,
      held: 123,
      fullTokens: 9_876_543,
    },
    ...extra,
  }) as RunSummary;

describe('the search page with the widest history', () => {
  const prefix = `width-${randomUUID()}`;
  const redis = createRedis(process.env.REDIS_URL);
  let server: DashboardServer;
  let browser: Browser | undefined;

  beforeAll(async () => {
    for (let i = 0; i < 12; i++) {
      const extra: Partial<RunSummary> =
        i % 4 === 1
          ? { dryRun: true, trigger: 'cli' }
          : i % 4 === 2
            ? { status: 'partial', stopReason: 'credit_cap_day', fullResync: true, trigger: 'manual' }
            : i % 4 === 3
              ? { status: 'failed', error: { code: 'crm_unavailable', message: 'HubSpot answered 503 three times' } }
              : {};
      await recordRun(redis, widest(i, extra), { prefix });
    }
    server = await startDashboardServer({
      queues: [],
      redis,
      prefix,
      port: 0,
      auth: AUTH,
      logger: silentLogger,
      searches: () => [SEARCH],
    });
    if (existsSync(CHROMIUM))
      browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: ['--headless', '--no-sandbox', '--disable-gpu'],
      });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
  });

  runBrowser(
    'fits 1280 x 800: no horizontal scroll, the history table ends inside the viewport',
    async () => {
      const context = await (browser as Browser).newContext({
        httpCredentials: AUTH,
        viewport: { width: 1280, height: 800 },
      });
      const page = await context.newPage();
      expect((await page.goto(`${server.url}/runs/widest-people`))?.status()).toBe(200);
      const m = await page.evaluate(`(() => {
        const s = document.scrollingElement;
        const t = document.querySelector('[aria-label="Run history"] table');
        return { scrollWidth: s.scrollWidth, clientWidth: s.clientWidth, right: t.getBoundingClientRect().right,
          rows: t.querySelectorAll('tbody tr').length, text: t.textContent };
      })()`);
      const { scrollWidth, clientWidth, right, rows, text } = m as {
        scrollWidth: number;
        clientWidth: number;
        right: number;
        rows: number;
        text: string;
      };
      expect(rows).toBe(12);
      expect(scrollWidth).toBeLessThanOrEqual(clientWidth);
      expect(right, `the history table ends at ${right} px`).toBeLessThanOrEqual(clientWidth);
      // nothing dropped to fit: every kind of figure is still in the table
      for (const figure of ['123456', '1234', '12345', 'dry run', 'full resync', 'crm_unavailable', 'partitions'])
        expect(text).toContain(figure);
      await mkdir(SHOTS, { recursive: true });
      await page.screenshot({ path: join(SHOTS, 'search-widest-1280.png'), fullPage: true });
      await context.close();
    },
    60_000,
  );
});
