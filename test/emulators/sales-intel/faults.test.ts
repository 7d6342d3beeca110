import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSalesIntelEmulator, type SalesIntelEmulator } from '../../../src/emulators/sales-intel/index.js';
import { call, client, walk, type Client } from './emulator-client.js';

describe('sales-intel emulator: fault injection', () => {
  let emu: SalesIntelEmulator;
  let c: Client;
  beforeAll(async () => {
    emu = await startSalesIntelEmulator({ companies: 1500, persons: 1000, seed: 5 });
    c = await client(emu);
  });
  afterEach(() => emu.faults.clear());
  afterAll(() => emu.close());

  it('serves a scripted 5xx sequence, optionally per route, with JSON {message}', async () => {
    emu.resetStats();
    emu.faults.set({ serverErrors: { sequence: [500, 200, 503], routes: ['companies.count'] } });
    expect((await c.post('/companies/filter?limit=1', {})).status).toBe(200);
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await c.post('/companies/filter/count', {})).status);
    expect(statuses).toEqual([500, 200, 503, 200]);
    expect(emu.stats('demo').served5xx).toBe(2);
    const r = await (emu.faults.set({ serverErrors: { sequence: [502] } }), c.get('/dictionaries/industry'));
    expect(r.status).toBe(502);
    expect(typeof r.body.message).toBe('string');
    expect(r.body).not.toHaveProperty('error');
    expect(r.headers.get('ratelimit-limit')).toBe('500');
  });

  it('serves a share of 5xx (0 never, 1 always, 0.5 about half)', async () => {
    emu.faults.set({ serverErrors: { share: 1 } });
    for (let i = 0; i < 5; i++) expect((await c.post('/persons/filter/count', {})).status).toBeGreaterThanOrEqual(500);
    expect((await call(emu, undefined, 'GET', '/health')).status).toBe(200);
    emu.faults.set({ serverErrors: { share: 0.5 } });
    let errors = 0;
    for (let i = 0; i < 200; i++) if ((await c.post('/persons/filter/count', {})).status >= 500) errors++;
    expect(errors).toBeGreaterThan(60);
    expect(errors).toBeLessThan(140);
    emu.faults.set({ serverErrors: { share: 0 } });
    expect((await c.post('/persons/filter/count', {})).status).toBe(200);
  });

  it('adds latency (fixed + jitter)', async () => {
    emu.faults.set({ latency: { fixedMs: 120, jitterMs: 30 } });
    const t0 = performance.now();
    await c.post('/companies/filter/count', {});
    const took = performance.now() - t0;
    expect(took).toBeGreaterThanOrEqual(115);
    emu.faults.set({ latency: null });
    const t1 = performance.now();
    await c.post('/companies/filter/count', {});
    expect(performance.now() - t1).toBeLessThan(100);
  });

  it('forces 429 for the next N limited requests', async () => {
    emu.faults.set({ force429: 2 });
    const a = await c.post('/companies/filter/count', {});
    const b = await c.get('/dictionaries/country');
    expect([a.status, b.status]).toEqual([429, 429]);
    expect(a.body).toMatchObject({ error: 'rate_limit_exceeded', operation: 'count', window: 'sustained' });
    expect(Number(a.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect((await c.post('/companies/filter/count', {})).status).toBe(200);
  });

  it('forces invalid_cursor for the next N cursor requests', async () => {
    const first = await c.post('/companies/filter?limit=10', {});
    const cursor = (first.body.page as { nextCursor: string }).nextCursor;
    emu.faults.set({ forceInvalidCursor: 1 });
    expect((await c.post('/companies/filter?limit=10', {})).status).toBe(200);
    expect((await c.post(`/companies/filter?limit=10&cursor=${cursor}`, {})).body).toMatchObject({
      error: 'invalid_cursor',
    });
    expect((await c.post(`/companies/filter?limit=10&cursor=${cursor}`, {})).status).toBe(200);
  });

  it('expires every issued token after N more requests (mid-journey)', async () => {
    const mine = await client(emu);
    emu.faults.set({ expireTokensAfter: 3 });
    for (let i = 0; i < 3; i++) expect((await mine.post('/companies/filter?limit=5', {})).status).toBe(200);
    expect((await mine.post('/companies/filter?limit=5', {})).status).toBe(401);
    expect((await (await client(emu)).post('/companies/filter?limit=5', {})).status).toBe(200);
  });

  it(
    'live-index churn: inserts behind the cursor repeat records, removals skip records; ids are ' + 'reported',
    async () => {
      const body = { company: { industry: { include: ['software', 'internet', 'banking', 'retail'] } } };
      const fresh = await startSalesIntelEmulator({ companies: 4000, persons: 0, seed: 9 });
      try {
        const f = await client(fresh);
        const before = await walk(f, '/companies/filter', body, 40);
        fresh.faults.set({ churn: { insertPerPage: 1, removePerPage: 0 } });
        const dupWalk = await walk(f, '/companies/filter', body, 40);
        const inserted = fresh.faults.churnLog().inserted;
        expect(inserted.length).toBeGreaterThan(0);
        expect(dupWalk.length - new Set(dupWalk).size).toBe(inserted.length);
        expect(new Set(dupWalk)).toEqual(new Set(before));
        expect(inserted.some((id) => before.includes(id))).toBe(false);
        // The inserted records are live now: a new walk without churn sees them.
        fresh.faults.clear();
        const grown = await walk(f, '/companies/filter', body, 40);
        expect(new Set(grown)).toEqual(new Set([...before, ...inserted]));
        expect(grown.length).toBe(before.length + inserted.length);

        fresh.faults.set({ churn: { insertPerPage: 0, removePerPage: 1 } });
        const skipWalk = await walk(f, '/companies/filter', body, 40);
        const removed = fresh.faults.churnLog().removed;
        expect(removed.length).toBe(Math.ceil(grown.length / 40) - 1);
        expect(new Set(skipWalk).size).toBe(skipWalk.length);
        const missed = grown.filter((id) => !skipWalk.includes(id));
        expect(missed).toHaveLength(removed.length);
        // Each removal took an already returned record and made the walk skip a live one.
        expect(removed.every((id) => skipWalk.includes(id))).toBe(true);
        fresh.faults.clear();
        const shrunk = await walk(f, '/companies/filter', body, 40);
        expect(new Set(shrunk)).toEqual(new Set(grown.filter((id) => !removed.includes(id))));
        expect((await f.post('/companies/filter/count', body)).body.total).toBe(shrunk.length);
      } finally {
        await fresh.close();
      }
    },
  );
});

describe('sales-intel emulator: HTTP control endpoints', () => {
  it('sets faults, reads stats and churn, resets, sets balances and expires tokens over HTTP', async () => {
    const emu = await startSalesIntelEmulator({ companies: 100, persons: 100, basePath: '/v1' });
    const ctl = (method: string, path: string, body?: unknown) =>
      fetch(`${emu.url}/__emulator/${path}`, {
        method,
        headers: { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    try {
      const c = await client(emu);
      expect((await ctl('POST', 'faults', { serverErrors: { sequence: [503] } })).status).toBe(200);
      expect((await c.post('/companies/filter/count', {})).status).toBe(503);
      expect((await ctl('POST', 'faults', { force429: 1 })).status).toBe(200);
      expect((await c.post('/companies/filter/count', {})).status).toBe(429);
      await c.post('/companies/filter?limit=7', {});
      const stats = (await (await ctl('GET', 'stats?accountId=demo')).json()) as Record<string, unknown>;
      expect(stats).toMatchObject({
        served5xx: 1,
        served429: { count: 1 },
        tokensCharged: 7,
        operations: { count: 2, search: 1 },
      });
      expect(await (await ctl('GET', 'churn')).json()).toEqual({ inserted: [], removed: [] });
      expect((await ctl('POST', 'reset')).status).toBe(200);
      expect(emu.stats().tokensCharged).toBe(0);
      expect((await ctl('POST', 'token-balance', { accountId: 'demo', remaining: 0 })).status).toBe(200);
      expect((await c.post('/companies/filter?limit=1', {})).status).toBe(402);
      expect((await ctl('POST', 'token-balance', { accountId: 'nobody', remaining: 1 })).status).toBe(404);
      expect((await ctl('POST', 'faults', [1])).status).toBe(400);
      expect((await ctl('POST', 'expire-tokens')).status).toBe(200);
      expect((await c.post('/companies/filter/count', {})).status).toBe(401);
      expect((await ctl('POST', 'faults', { limiterDown: true })).status).toBe(200);
      expect(((await (await ctl('GET', 'faults')).json()) as { limiterDown: boolean }).limiterDown).toBe(true);
      expect((await ctl('POST', 'faults/clear')).status).toBe(200);
      expect(emu.faults.current().limiterDown).toBe(false);
    } finally {
      await emu.close();
    }
  });
});
