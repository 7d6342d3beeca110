import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSalesIntelEmulator, type SalesIntelEmulator } from '../../../src/emulators/sales-intel/index.js';
import { client, type Client } from './emulator-client.js';

type Company = { id: string; headcount: number; revenue: number };

describe('sales-intel emulator: offset mode', () => {
  let emu: SalesIntelEmulator;
  let c: Client;
  const body = { company: { location: { type: 'hq', country: { include: ['DE', 'AT', 'CH', 'US'] } } } };
  let all: Company[];
  beforeAll(async () => {
    emu = await startSalesIntelEmulator({ companies: 2000, persons: 3000, seed: 3 });
    c = await client(emu);
    all = [];
    for (let o = 0; ; o += 100) {
      const r = await c.post(`/companies/filter?offset=${o}&limit=100`, body);
      const data = r.body.data as Company[];
      all.push(...data);
      if (data.length < 100) break;
    }
  });
  afterAll(() => emu.close());

  it('reports page {limit, offset, total} with total equal to the count', async () => {
    const total = (await c.post('/companies/filter/count', body)).body.total;
    const r = await c.post('/companies/filter?offset=20&limit=7', body);
    expect(r.body.page).toEqual({ limit: 7, offset: 20, total });
    expect(all).toHaveLength(total as number);
    expect((r.body.data as Company[]).map((d) => d.id)).toEqual(all.slice(20, 27).map((d) => d.id));
  });

  it.each([
    ['headcount', 'ASC'],
    ['headcount', 'DESC'],
    ['revenue', 'ASC'],
    ['revenue', 'DESC'],
  ] as const)('sorts by %s %s', async (field, direction) => {
    const sorted = [...all].sort((a, b) => (direction === 'ASC' ? a[field] - b[field] : b[field] - a[field]));
    const sortBody = { ...body, options: { sortFields: [{ field, direction }] } };
    const first = await c.post('/companies/filter?offset=0&limit=100', sortBody);
    const second = await c.post('/companies/filter?offset=100&limit=100', sortBody);
    const got = [...(first.body.data as Company[]), ...(second.body.data as Company[])].map((d) => d[field]);
    expect(got).toEqual(sorted.slice(0, 200).map((d) => d[field]));
  });

  it('sorts persons by their company headcount', async () => {
    const headcount = new Map<string, number>();
    for (let o = 0; o < 2000; o += 100) {
      const r = await c.post(`/companies/filter?offset=${o}&limit=100`, {});
      for (const x of r.body.data as Company[]) headcount.set(x.id, x.headcount);
    }
    const sortBody = { options: { sortFields: [{ field: 'headcount', direction: 'DESC' }] } };
    const pages = [
      await c.post('/persons/filter?offset=0&limit=100', sortBody),
      await c.post('/persons/filter?offset=100&limit=100', sortBody),
    ];
    const heads = pages.flatMap((p) =>
      (p.body.data as { companyId: string }[]).map((x) => headcount.get(x.companyId)!),
    );
    expect(heads).toHaveLength(200);
    expect(heads).toEqual([...heads].sort((a, b) => b - a));
    expect(heads[0]).toBeGreaterThan(heads[199]!);
    expect((pages[0]!.body.page as { total: number }).total).toBe(3000);
  });

  it('ignores sortFields in cursor mode', async () => {
    const plain = await c.post('/companies/filter?limit=20', body);
    const sorted = await c.post('/companies/filter?limit=20', {
      ...body,
      options: { sortFields: [{ field: 'revenue', direction: 'DESC' }] },
    });
    expect((sorted.body.data as Company[]).map((d) => d.id)).toEqual((plain.body.data as Company[]).map((d) => d.id));
  });

  it('returns an empty page past the end and allows offset 10000', async () => {
    const r = await c.post('/companies/filter?offset=10000&limit=100', body);
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual([]);
  });
});
