import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startSalesIntelEmulator,
  type CursorStyle,
  type SalesIntelEmulator,
} from '../../../src/emulators/sales-intel/index.js';
import { client, walk, type Client } from './emulator-client.js';

const software = { company: { industry: { include: ['software', 'internet'] } } };

describe.each<CursorStyle>(['json-v1', 'compact-v2'])('sales-intel emulator: cursor journeys (%s)', (cursorStyle) => {
  let emu: SalesIntelEmulator;
  let c: Client;
  beforeAll(async () => {
    emu = await startSalesIntelEmulator({ companies: 3000, persons: 6000, cursorStyle, seed: 7 });
    c = await client(emu);
  });
  afterAll(() => emu.close());

  it('walks every match exactly once, in a fixed order, ending with nextCursor null', async () => {
    const total = (await c.post('/companies/filter/count', software)).body.total as number;
    expect(total).toBeGreaterThan(150);
    const ids = await walk(c, '/companies/filter', software, 37);
    expect(ids).toHaveLength(total);
    expect(new Set(ids).size).toBe(total);
    expect(await walk(c, '/companies/filter', software, 100)).toEqual(ids);
    // Same set as offset mode's unsorted pages.
    const offset: string[] = [];
    for (let o = 0; o < total; o += 100) {
      const r = await c.post(`/companies/filter?offset=${o}&limit=100`, software);
      offset.push(...(r.body.data as { id: string }[]).map((d) => d.id));
    }
    expect(offset).toEqual(ids);
  });

  it(
    'cursor is opaque base64url of at most 200 characters; page has limit, nextCursor, hasMore and no ' + 'total',
    async () => {
      const r = await c.post('/persons/filter?limit=10', { person: { seniority: { include: ['vp'] } } });
      const page = r.body.page as Record<string, unknown>;
      expect(Object.keys(page).sort()).toEqual(['hasMore', 'limit', 'nextCursor']);
      expect(page.nextCursor).toMatch(/^[A-Za-z0-9_-]{1,200}$/);
    },
  );

  it('body key order does not matter; any value change gives 400 cursor_filter_mismatch', async () => {
    const body = { company: { headcount: { gte: 10, lte: 5000 }, industry: { include: ['software'] } } };
    const first = await c.post('/companies/filter?limit=5', body);
    const cursor = encodeURIComponent((first.body.page as { nextCursor: string }).nextCursor);
    const reordered = { company: { industry: { include: ['software'] }, headcount: { lte: 5000, gte: 10 } } };
    expect((await c.post(`/companies/filter?limit=5&cursor=${cursor}`, reordered)).status).toBe(200);
    const changed = await c.post(`/companies/filter?limit=5&cursor=${cursor}`, {
      company: { ...body.company, headcount: { gte: 11, lte: 5000 } },
    });
    expect(changed.status).toBe(400);
    expect(changed.body).toMatchObject({ error: 'cursor_filter_mismatch' });
    const withOptions = await c.post(`/companies/filter?limit=5&cursor=${cursor}`, {
      ...body,
      options: { sortFields: [] },
    });
    expect(withOptions.body).toMatchObject({ error: 'cursor_filter_mismatch' });
  });

  it('malformed or unknown-version cursors give 400 invalid_cursor', async () => {
    const first = await c.post('/companies/filter?limit=5', {});
    const good = (first.body.page as { nextCursor: string }).nextCursor;
    const raw = Buffer.from(good, 'base64url');
    const flipped = Buffer.from(raw);
    flipped[flipped.length - 2] = (flipped[flipped.length - 2]! ^ 0x55) & 0xff;
    const otherVersion =
      cursorStyle === 'json-v1'
        ? Buffer.from(JSON.stringify({ ...JSON.parse(raw.toString()), v: 9 })).toString('base64url')
        : Buffer.concat([Buffer.from([9]), raw.subarray(1)]).toString('base64url');
    for (const bad of ['not*base64', 'AAAA', flipped.toString('base64url'), otherVersion]) {
      const r = await c.post(`/companies/filter?limit=5&cursor=${encodeURIComponent(bad)}`, {});
      expect(r.status, bad).toBe(400);
      expect(r.body).toMatchObject({ error: 'invalid_cursor' });
    }
  });
});

describe('sales-intel emulator: cursor encodings differ between styles', () => {
  it("a cursor of one style is an unsupported version for the other's emulator", async () => {
    const v1 = await startSalesIntelEmulator({ companies: 200, persons: 10, cursorStyle: 'json-v1' });
    const v2 = await startSalesIntelEmulator({ companies: 200, persons: 10, cursorStyle: 'compact-v2' });
    try {
      const [c1, c2] = [await client(v1), await client(v2)];
      const k1 = ((await c1.post('/companies/filter?limit=5', {})).body.page as { nextCursor: string }).nextCursor;
      const k2 = ((await c2.post('/companies/filter?limit=5', {})).body.page as { nextCursor: string }).nextCursor;
      expect(k1).not.toEqual(k2);
      expect((await c2.post(`/companies/filter?limit=5&cursor=${k1}`, {})).body).toMatchObject({
        error: 'invalid_cursor',
      });
      expect((await c1.post(`/companies/filter?limit=5&cursor=${k2}`, {})).body).toMatchObject({
        error: 'invalid_cursor',
      });
    } finally {
      await Promise.all([v1.close(), v2.close()]);
    }
  });
});

describe('sales-intel emulator: journey depth', () => {
  let emu: SalesIntelEmulator;
  beforeAll(async () => {
    const limits = { search: 100_000, count: 100_000, dictionary: 100_000 };
    emu = await startSalesIntelEmulator({
      companies: 150_000,
      persons: 0,
      accounts: [{ clientId: 'demo-client', clientSecret: 'demo-secret', accountId: 'demo', limits }],
    });
  });
  afterAll(() => emu.close());

  it('returns 100,000 records in one journey, then 422 pagination_depth_exceeded', async () => {
    const c = await client(emu);
    const body = { company: { headcount: { gte: 1 } } };
    expect((await c.post('/companies/filter/count', body)).body.total).toBeGreaterThanOrEqual(100_100);
    let cursor: string | null = null;
    let returned = 0;
    for (let page = 0; page < 1000; page++) {
      const q: string = cursor === null ? '' : `&cursor=${cursor}`;
      const r = await c.post(`/companies/filter?limit=100${q}`, body);
      expect(r.status).toBe(200);
      returned += (r.body.data as unknown[]).length;
      cursor = (r.body.page as { nextCursor: string }).nextCursor;
    }
    expect(returned).toBe(100_000);
    const over = await c.post(`/companies/filter?limit=1&cursor=${cursor}`, body);
    expect(over.status).toBe(422);
    expect(over.body).toMatchObject({ error: 'pagination_depth_exceeded' });
    // A new journey starts again from the first page.
    expect((await c.post('/companies/filter?limit=1', body)).status).toBe(200);
  }, 30_000);
});
