/**
 * The control the mirror's tests drive leavers with: a company's headcount changes between runs, so it moves out of
 * (and back into) a headcount filter; counts, walks and the persons of a company filter follow.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSalesIntelEmulator, type SalesIntelEmulator } from '../../../src/emulators/sales-intel/index.js';
import { call, client, walk, type Client } from './emulator-client.js';

const SMALL = { company: { headcount: { gte: 1, lte: 1_000_000 } } };

let emu: SalesIntelEmulator;
let c: Client;
beforeAll(async () => {
  emu = await startSalesIntelEmulator({ port: 0, companies: 200, persons: 1_000 });
  c = await client(emu);
});
afterAll(() => emu.close());

describe('company-headcount control', () => {
  it('moves a company out of a filter and back; counts and walks follow at once', async () => {
    const before = await walk(c, '/companies/filter', SMALL);
    const id = before[3]!;
    emu.setCompanyHeadcount(id, 2_000_000);
    const out = await walk(c, '/companies/filter', SMALL);
    expect(out).toEqual(before.filter((x) => x !== id));
    expect((await c.post('/companies/filter/count', SMALL)).body.total).toBe(before.length - 1);
    const big = await walk(c, '/companies/filter', { company: { headcount: { gte: 1_500_000 } } });
    expect(big).toEqual([id]);
    emu.setCompanyHeadcount(id, 10);
    expect(await walk(c, '/companies/filter', SMALL)).toEqual(before);
  });

  it(
    'is reachable over HTTP (POST /__emulator/company-headcount) and refuses a bad body or an unknown ' + 'company',
    async () => {
      const before = await walk(c, '/companies/filter', SMALL);
      const ok = await call(emu, undefined, 'POST', '/__emulator/company-headcount', {
        id: before[0],
        headcount: 2_000_000,
      });
      expect(ok.status).toBe(200);
      expect(await walk(c, '/companies/filter', SMALL)).toEqual(before.slice(1));
      expect(
        (await call(emu, undefined, 'POST', '/__emulator/company-headcount', { id: before[0], headcount: 0 })).status,
      ).toBe(400);
      expect(
        (await call(emu, undefined, 'POST', '/__emulator/company-headcount', { id: 'c_zzzzzzz', headcount: 5 })).status,
      ).toBe(404);
      expect((await call(emu, undefined, 'POST', '/__emulator/company-headcount', { headcount: 5 })).status).toBe(400);
      expect(() => emu.setCompanyHeadcount('nope', 5)).toThrow(RangeError);
    },
  );

  it('moves many companies in one call (`moves`), all or none: one unknown id or bad move moves nobody', async () => {
    const before = await walk(c, '/companies/filter', SMALL);
    const out = before.slice(0, 5);
    const path = '/__emulator/company-headcount';
    const unknown = await call(emu, undefined, 'POST', path, {
      moves: [...out.map((id) => ({ id, headcount: 2_000_000 })), { id: 'c_zzzzzzz', headcount: 5 }],
    });
    expect(unknown.status).toBe(404);
    expect(
      (
        await call(emu, undefined, 'POST', path, {
          moves: [
            { id: out[0], headcount: 2_000_000 },
            { id: out[1], headcount: 0 },
          ],
        })
      ).status,
    ).toBe(400);
    expect((await call(emu, undefined, 'POST', path, { moves: [] })).status).toBe(400);
    expect(await walk(c, '/companies/filter', SMALL)).toEqual(before);

    const moved = await call(emu, undefined, 'POST', path, { moves: out.map((id) => ({ id, headcount: 2_000_000 })) });
    expect(moved.status).toBe(200);
    expect(await walk(c, '/companies/filter', SMALL)).toEqual(before.slice(5));
    await call(emu, undefined, 'POST', path, { moves: out.map((id) => ({ id, headcount: 10 })) });
    expect(await walk(c, '/companies/filter', SMALL)).toEqual(before);
  });
});
