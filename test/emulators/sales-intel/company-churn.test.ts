/**
 * The index churn the token-period benchmark drives (POST /__emulator/company-churn) and the token period's clock
 * (the emulator's `tokenClock`): companies change, leave and enter in thirds, seeded; the period follows its clock.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSalesIntelEmulator, type SalesIntelEmulator } from '../../../src/emulators/sales-intel/index.js';
import type { ChurnedCompany } from '../../../src/emulators/sales-intel/company-churn.js';
import { call, client, walk, type Client } from './emulator-client.js';

const ALL = {};
const GERMANY = { company: { location: { country: { include: ['DE'] } } } };

let emu: SalesIntelEmulator;
let c: Client;
beforeAll(async () => {
  emu = await startSalesIntelEmulator({ port: 0, companies: 600, persons: 0, companyReserveEvery: 8, seed: 3 });
  c = await client(emu);
});
afterAll(() => emu.close());

async function headcounts(filter: unknown): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  let cursor: string | null = null;
  do {
    const r = await c.post(
      `/companies/filter?limit=100${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`,
      filter,
    );
    const body = r.body as { data: { id: string; headcount: number }[]; page: { nextCursor: string | null } };
    for (const d of body.data) out.set(d.id, d.headcount);
    cursor = body.page.nextCursor;
  } while (cursor !== null);
  return out;
}

describe('company-churn control', () => {
  it(
    'changes, removes and adds a share of the companies in thirds; walks, counts and filters follow at ' + 'once',
    async () => {
      const before = await headcounts(ALL);
      const germany = new Set(await walk(c, '/companies/filter', GERMANY));
      const r = await call(emu, undefined, 'POST', '/__emulator/company-churn', {
        share: 0.05,
        seed: 7,
        filters: { de: GERMANY },
      });
      expect(r.status).toBe(200);
      const changes = (r.body as { changes: ChurnedCompany[] }).changes;
      const of = (kind: ChurnedCompany['change']): ChurnedCompany[] => changes.filter((x) => x.change === kind);
      expect(changes).toHaveLength(30);
      expect([of('changed').length, of('left').length, of('entered').length]).toEqual([10, 10, 10]);
      const after = await headcounts(ALL);
      expect(after.size).toBe(before.size);
      for (const x of of('changed')) {
        expect(after.get(x.id)).toBe(x.headcount);
        expect(x.headcount).not.toBe(before.get(x.id));
      }
      for (const x of of('left')) expect([before.has(x.id), after.has(x.id)]).toEqual([true, false]);
      for (const x of of('entered'))
        expect([before.has(x.id), after.has(x.id), after.get(x.id)]).toEqual([false, true, x.headcount]);
      const untouched = [...before.keys()].filter((id) => !changes.some((x) => x.id === id));
      for (const id of untouched) expect(after.get(id)).toBe(before.get(id));
      // `matches` names the filters each company is in (a leaver: the ones it was in)
      const germanyNow = new Set(await walk(c, '/companies/filter', GERMANY));
      for (const x of changes) {
        const inGermany = x.change === 'left' ? germany.has(x.id) : germanyNow.has(x.id);
        expect(x.matches).toEqual(inGermany ? ['de'] : []);
      }
      expect((await c.post('/companies/filter/count', GERMANY)).body.total).toBe(germanyNow.size);
    },
  );

  it(
    'is seeded (the same steps on the same data give the same changes) and never brings back a company that ' + 'left',
    async () => {
      const one = await startSalesIntelEmulator({
        port: 0,
        companies: 600,
        persons: 0,
        companyReserveEvery: 8,
        seed: 3,
      });
      const twin = await startSalesIntelEmulator({
        port: 0,
        companies: 600,
        persons: 0,
        companyReserveEvery: 8,
        seed: 3,
      });
      try {
        const left = new Set<string>();
        for (let day = 0; day < 12; day++) {
          const mine = one.churnCompanies(0.05, 100 + day);
          expect(twin.churnCompanies(0.05, 100 + day).map((x) => [x.id, x.change, x.headcount])).toEqual(
            mine.map((x) => [x.id, x.change, x.headcount]),
          );
          for (const x of mine.filter((y) => y.change === 'entered')) expect(left.has(x.id)).toBe(false);
          for (const x of mine.filter((y) => y.change === 'left')) left.add(x.id);
        }
      } finally {
        await Promise.all([one.close(), twin.close()]);
      }
    },
  );

  it('refuses a bad body or an invalid filter, changing nothing', async () => {
    const before = await headcounts(ALL);
    expect((await call(emu, undefined, 'POST', '/__emulator/company-churn', { share: 2, seed: 1 })).status).toBe(400);
    expect((await call(emu, undefined, 'POST', '/__emulator/company-churn', { share: 0.1, seed: 1.5 })).status).toBe(
      400,
    );
    expect(
      (
        await call(emu, undefined, 'POST', '/__emulator/company-churn', {
          share: 0.1,
          seed: 1,
          filters: { x: { company: { location: { country: { include: ['XX'] } } } } },
        })
      ).status,
    ).toBe(400);
    expect(await headcounts(ALL)).toEqual(before);
  });
});

describe('token period clock', () => {
  it('the token period keeps the clock it is given: its reset and renewal follow it, not the wall clock', async () => {
    let clock = Date.UTC(2026, 0, 1);
    const e = await startSalesIntelEmulator({
      port: 0,
      companies: 300,
      persons: 0,
      tokenClock: () => clock,
      accounts: [
        { clientId: 'k', clientSecret: 's', accountId: 'a', tokenAllotment: 1_000, tokenPeriodSeconds: 30 * 86_400 },
      ],
    });
    try {
      const k = await client(e, 'k', 's');
      const page = async (): Promise<[number, number]> => {
        const r = await k.post('/companies/filter?limit=10', ALL);
        return [
          Number(r.headers.get('x-rate-results-limit-reset')),
          Number(r.headers.get('x-rate-results-limit-remaining')),
        ];
      };
      expect(await page()).toEqual([30 * 86_400, 990]);
      clock += 10 * 86_400 * 1000;
      expect(await page()).toEqual([20 * 86_400, 980]);
      clock += 20 * 86_400 * 1000;
      expect(await page()).toEqual([30 * 86_400, 990]);
    } finally {
      await e.close();
    }
  });
});
