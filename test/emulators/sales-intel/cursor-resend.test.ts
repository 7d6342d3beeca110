/**
 * The assumption reveal-once journeys rest on (docs/api-assumptions.md): a cursor is stateless and bound to the
 * body only, so it may be sent again with another `limit` and `view`. And the emulator controls around it: the
 * refuseResentCursor fault and insert-persons.
 */
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { startSalesIntelEmulator, type SalesIntelEmulator } from '../../../src/emulators/sales-intel/index.js';
import { call, client, walk, type Client } from './emulator-client.js';

const BODY = { company: { headcount: { gte: 1 } } };
type Page = { page: { nextCursor: string | null; limit?: number }; data: { id: string; contacts?: unknown }[] };

let emu: SalesIntelEmulator;
let c: Client;
beforeAll(async () => {
  emu = await startSalesIntelEmulator({ port: 0, companies: 200, persons: 2_000, personReserveEvery: 20 });
  c = await client(emu);
});
afterAll(() => emu.close());

const page = async (query: string, body: unknown = BODY): Promise<Page> => {
  const r = await c.post(`/persons/filter?${query}`, body);
  expect(r.status).toBe(200);
  return r.body as unknown as Page;
};

describe('cursor sent again', () => {
  it(
    'the same cursor answers the same position again, with any limit and view; credits only with ' + 'contacts',
    async () => {
      emu.faults.set({ keepJourneyLimit: false });
      onTestFinished(() => emu.faults.set({ keepJourneyLimit: true }));
      const first = await page('limit=100');
      const cursor = encodeURIComponent(first.page.nextCursor!);
      const walked = await page(`limit=100&cursor=${cursor}`);
      emu.resetStats();
      // skip ahead 37 without contacts, then reveal 5 from the cursor that returns
      const skip = await page(`limit=37&cursor=${cursor}`);
      expect(skip.data.map((d) => d.id)).toEqual(walked.data.slice(0, 37).map((d) => d.id));
      const reveal = await page(`limit=5&view=contacts&cursor=${encodeURIComponent(skip.page.nextCursor!)}`);
      expect(reveal.data.map((d) => d.id)).toEqual(walked.data.slice(37, 42).map((d) => d.id));
      expect(reveal.data.every((d) => d.contacts !== undefined)).toBe(true);
      expect(skip.data.every((d) => d.contacts === undefined)).toBe(true);
      const stats = emu.stats('demo');
      expect(stats.creditsCharged).toBe(5);
      expect(stats.tokensCharged).toBe(42);
    },
  );

  it(
    "keepJourneyLimit (the default): a later page keeps the journey's first limit, and page.limit says " + 'so',
    async () => {
      expect(emu.faults.current().keepJourneyLimit).toBe(true);
      const first = await page('limit=40');
      expect(first.page).toMatchObject({ limit: 40 });
      const cursor = encodeURIComponent(first.page.nextCursor!);
      const smaller = await page(`limit=7&cursor=${cursor}`);
      expect(smaller.data).toHaveLength(40);
      expect(smaller.page).toMatchObject({ limit: 40 });
      const after = await page(`limit=100&cursor=${encodeURIComponent(smaller.page.nextCursor!)}`);
      expect(after.data).toHaveLength(40);
      // an offset page is a request of its own: its limit is honoured
      const byOffset = await page('limit=7&offset=40');
      expect(byOffset.data.map((d) => d.id)).toEqual(smaller.data.slice(0, 7).map((d) => d.id));
    },
  );

  it('refuseResentCursor: a cursor is accepted once, the second use answers 400 invalid_cursor', async () => {
    emu.faults.set({ refuseResentCursor: true });
    try {
      const first = await page('limit=10');
      const q = `limit=10&cursor=${encodeURIComponent(first.page.nextCursor!)}`;
      expect((await c.post(`/persons/filter?${q}`, BODY)).status).toBe(200);
      const again = await c.post(`/persons/filter?${q}`, BODY);
      expect(again).toMatchObject({ status: 400, body: { error: 'invalid_cursor' } });
    } finally {
      emu.faults.set({ refuseResentCursor: false });
    }
  });
});

describe('insert-persons control', () => {
  it(
    'makes hidden persons matching the filter visible, spread over the range; counts and walks include ' + 'them',
    async () => {
      const before = await walk(c, '/persons/filter', BODY);
      const inserted = emu.insertPersons(40, BODY);
      expect(inserted.length).toBe(40);
      const after = await walk(c, '/persons/filter', BODY);
      expect(after.length).toBe(before.length + 40);
      expect(new Set(after)).toEqual(new Set([...before, ...inserted]));
      // spread: not all in one page
      const pages = new Set(inserted.map((id) => Math.floor(after.indexOf(id) / 100)));
      expect(pages.size).toBeGreaterThan(10);
      const count = await c.post('/persons/filter/count', BODY);
      expect(count.body.total).toBe(after.length);
    },
  );

  it('is reachable over HTTP (POST /__emulator/insert-persons) and refuses a bad body', async () => {
    const ok = await call(emu, undefined, 'POST', '/__emulator/insert-persons', { count: 3, filter: BODY });
    expect(ok.status).toBe(200);
    expect((ok.body.inserted as string[]).length).toBe(3);
    expect((await call(emu, undefined, 'POST', '/__emulator/insert-persons', { count: -1 })).status).toBe(400);
    expect(
      (await call(emu, undefined, 'POST', '/__emulator/insert-persons', { count: 1, filter: { nope: 1 } })).status,
    ).toBe(400);
  });
});
