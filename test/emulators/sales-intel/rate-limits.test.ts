import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSalesIntelEmulator, type SalesIntelEmulator } from '../../../src/emulators/sales-intel/index.js';
import { call, client } from './emulator-client.js';

// Long enough that one test's burst stays inside one window on a loaded 2-core machine.
const WINDOW = 2.5;

describe('sales-intel emulator: rate limits', () => {
  let emu: SalesIntelEmulator;
  beforeAll(async () => {
    emu = await startSalesIntelEmulator({
      companies: 300,
      persons: 300,
      windowSeconds: WINDOW,
      accounts: [
        { clientId: 'small', clientSecret: 's', accountId: 'small', limits: { search: 3, count: 2, dictionary: 2 } },
        { clientId: 'other', clientSecret: 'o', accountId: 'other', limits: { search: 30, count: 30, dictionary: 30 } },
      ],
    });
  });
  afterAll(() => emu.close());

  /** Waits until just after a window boundary so a test's requests fall into one window. */
  async function freshWindow(): Promise<void> {
    const ms = WINDOW * 1000;
    await new Promise((r) => setTimeout(r, ms - (Date.now() % ms) + 20));
  }

  it('enforces the package limit per account and operation, with headers on success and on 429', async () => {
    const c = await client(emu, 'small', 's');
    const o = await client(emu, 'other', 'o');
    await freshWindow();
    for (let i = 1; i <= 3; i++) {
      const r = await c.post('/companies/filter?limit=1', {});
      expect(r.status).toBe(200);
      expect(r.headers.get('ratelimit-limit')).toBe('3');
      expect(r.headers.get('ratelimit-remaining')).toBe(String(3 - i));
      expect(r.headers.get('ratelimit-policy')).toBe(`3;w=${WINDOW}`);
      expect(Number(r.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
      expect(Number(r.headers.get('ratelimit-reset'))).toBeLessThanOrEqual(WINDOW);
    }
    const limited = await c.post('/persons/filter?limit=1', {});
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ error: 'rate_limit_exceeded', operation: 'search', window: 'sustained' });
    expect(typeof limited.body.message).toBe('string');
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(limited.body.retryAfter).toBe(retryAfter);
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');
    expect(limited.headers.get('ratelimit-limit')).toBe('3');
    // The highest count of any one window, for benchmarks: the refused request counts too (it used the window).
    expect(emu.stats('small').peakPerWindow.search).toBe(4);
    // Other operations and other accounts are independent.
    const count = await c.post('/companies/filter/count', {});
    expect(count.status).toBe(200);
    expect(count.headers.get('ratelimit-limit')).toBe('2');
    expect((await c.get('/dictionaries/industry')).status).toBe(200);
    expect((await o.post('/companies/filter?limit=1', {})).status).toBe(200);
    // Settings count as the dictionary operation.
    expect((await c.get('/settings/compliance')).status).toBe(200);
    const third = await c.get('/settings/intent-topics');
    expect(third.status).toBe(429);
    expect(third.body).toMatchObject({ operation: 'dictionary' });
    // /health is never limited and carries no RateLimit headers.
    for (let i = 0; i < 10; i++) {
      const h = await call(emu, undefined, 'GET', '/health');
      expect(h.status).toBe(200);
      expect(h.headers.get('ratelimit-limit')).toBeNull();
    }
    expect(emu.stats('small').served429).toEqual({ search: 1, count: 0, dictionary: 1 });
  });

  it('carries the headers on error responses too and resets with the window', async () => {
    const c = await client(emu, 'small', 's');
    await freshWindow();
    const bad = await c.post('/companies/filter/count?limit=1', {});
    expect(bad.status).toBe(400);
    expect(bad.headers.get('ratelimit-remaining')).toBe('1');
    await c.post('/companies/filter/count', {});
    expect((await c.post('/companies/filter/count', {})).status).toBe(429);
    await freshWindow();
    const after = await c.post('/companies/filter/count', {});
    expect(after.status).toBe(200);
    expect(after.headers.get('ratelimit-remaining')).toBe('1');
  });

  it('limiter store down: requests pass and RateLimit-* headers are omitted', async () => {
    const c = await client(emu, 'small', 's');
    emu.faults.set({ limiterDown: true });
    try {
      for (let i = 0; i < 6; i++) {
        const r = await c.post('/companies/filter?limit=1', {});
        expect(r.status).toBe(200);
        for (const h of ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'ratelimit-policy'])
          expect(r.headers.get(h)).toBeNull();
      }
    } finally {
      emu.faults.set({ limiterDown: false });
    }
  });

  it('whole-second windows report whole seconds', async () => {
    const e = await startSalesIntelEmulator({ companies: 10, persons: 0 });
    try {
      const r = await (await client(e)).post('/companies/filter/count', {});
      expect(r.headers.get('ratelimit-policy')).toBe('500;w=60');
      expect(r.headers.get('ratelimit-reset')).toMatch(/^\d+$/);
    } finally {
      await e.close();
    }
  });
});
