import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DICTIONARIES,
  startSalesIntelEmulator,
  type SalesIntelEmulator,
} from '../../../src/emulators/sales-intel/index.js';
import { call, client, walk, type Client } from './emulator-client.js';

type Rec = Record<string, unknown>;

async function firstPage(emu: SalesIntelEmulator, path: string, body: unknown = {}): Promise<Rec[]> {
  return (await (await client(emu)).post(path, body)).body.data as Rec[];
}

describe('sales-intel emulator: data, filters and dictionaries', () => {
  let emu: SalesIntelEmulator;
  let c: Client;
  let companies: Map<string, Rec>;
  beforeAll(async () => {
    emu = await startSalesIntelEmulator({ companies: 2000, persons: 4000, seed: 11 });
    c = await client(emu);
    companies = new Map();
    for (let o = 0; o < 2000; o += 100) {
      for (const r of (await c.post(`/companies/filter?offset=${o}&limit=100`, {})).body.data as Rec[])
        companies.set(r.id as string, r);
    }
  });
  afterAll(() => emu.close());

  it('has exactly the configured sizes', async () => {
    expect((await c.post('/companies/filter/count', {})).body.total).toBe(2000);
    expect((await c.post('/persons/filter/count', {})).body.total).toBe(4000);
    expect(companies.size).toBe(2000);
  });

  it('serves company records with the documented fields', () => {
    const r = companies.values().next().value!;
    expect(Object.keys(r).sort()).toEqual([
      'country',
      'domain',
      'events',
      'foundedYear',
      'headcount',
      'id',
      'industry',
      'naicsCodes',
      'name',
      'region',
      'revenue',
      'sicCodes',
      'technologies',
    ]);
  });

  it('puts odd Unicode (accents, CJK, emoji, RTL) into names', async () => {
    const names = [...companies.values()].map((r) => r.name as string).join(' ');
    const persons = (await c.post('/persons/filter?limit=100', {})).body.data as Rec[];
    const all = names + persons.map((p) => p.fullName).join(' ');
    expect(all).toMatch(/[éüöøñ]/);
    expect(all).toMatch(/\p{Script=Han}/u);
    expect(all).toMatch(/\p{Extended_Pictographic}/u);
    expect(all).toMatch(/[\u0590-\u06ff]/);
  });

  const companyFilters: [string, Rec, (r: Rec) => boolean][] = [
    [
      'industry',
      { industry: { include: ['software', 'banking'] } },
      (r) => ['software', 'banking'].includes(r.industry as string),
    ],
    [
      'hq country',
      { location: { type: 'hq', country: { include: ['DE', 'AT', 'CH'] } } },
      (r) => ['DE', 'AT', 'CH'].includes(r.country as string),
    ],
    ['region', { location: { region: { include: ['nordics'] } } }, (r) => r.region === 'nordics'],
    [
      'headcount',
      { headcount: { gte: 50, lte: 500 } },
      (r) => (r.headcount as number) >= 50 && (r.headcount as number) <= 500,
    ],
    ['revenue', { revenue: { gte: 10_000_000 } }, (r) => (r.revenue as number) >= 10_000_000],
    [
      'founded year',
      { foundedYear: { gte: 2010, lte: 2015 } },
      (r) => (r.foundedYear as number) >= 2010 && (r.foundedYear as number) <= 2015,
    ],
    [
      'technologies',
      { technologies: { include: ['snowflake', 'sap'] } },
      (r) => (r.technologies as string[]).some((t) => t === 'snowflake' || t === 'sap'),
    ],
  ];
  it.each(companyFilters)('company filter %s: count, walk and predicate agree', async (_n, filter, pred) => {
    const body = { company: filter };
    const expected = [...companies.values()].filter(pred).map((r) => r.id);
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(2000);
    expect((await c.post('/companies/filter/count', body)).body.total).toBe(expected.length);
    expect(await walk(c, '/companies/filter', body)).toEqual(expected);
  });

  it('person filters (seniority, department, job title, country, company filter) match the records', async () => {
    const body = {
      person: {
        seniority: { include: ['vp', 'director'] },
        department: { include: ['sales', 'marketing'] },
        location: { country: { include: ['US', 'DE', 'GB', 'CA'] } },
      },
      company: { headcount: { gte: 20 } },
    };
    const ids = await walk(c, '/persons/filter', body, 100);
    expect((await c.post('/persons/filter/count', body)).body.total).toBe(ids.length);
    expect(ids.length).toBeGreaterThan(5);
    const sample = (await c.post('/persons/filter?limit=100', body)).body.data as Rec[];
    for (const p of sample) {
      expect(['vp', 'director']).toContain(p.seniority);
      expect(['sales', 'marketing']).toContain(p.department);
      expect(['US', 'DE', 'GB', 'CA']).toContain(p.country);
      expect(companies.get(p.companyId as string)!.headcount as number).toBeGreaterThanOrEqual(20);
    }
    const titles = (await c.post('/persons/filter?limit=100', { person: { jobTitle: { include: ['ENGINEERING'] } } }))
      .body.data as Rec[];
    expect(titles.length).toBeGreaterThan(0);
    for (const p of titles) expect((p.jobTitle as string).toLowerCase()).toContain('engineering');
  });

  it.each([
    ['broad (most companies match)', { headcount: { gte: 3 } }],
    ['selective (few companies match)', { industry: { include: ['software'] }, headcount: { gte: 300 } }],
  ])(
    'persons under a %s company filter: count and walk equal the persons of matching companies',
    async (_n, company) => {
      const matching = new Set(await walk(c, '/companies/filter', { company }));
      const everyone = new Map<string, string>();
      for (let o = 0; o < 4000; o += 100) {
        for (const p of (await c.post(`/persons/filter?offset=${o}&limit=100`, {})).body.data as Rec[])
          everyone.set(p.id as string, p.companyId as string);
      }
      const expected = [...everyone].filter(([, cid]) => matching.has(cid)).map(([id]) => id);
      const body = {
        company,
        person: { seniority: { include: ['owner', 'c_level', 'vp', 'director', 'manager', 'senior', 'entry'] } },
      };
      const expectedWithSeniority = (await walk(c, '/persons/filter', body)).length;
      expect((await c.post('/persons/filter/count', { company })).body.total).toBe(expected.length);
      expect(await walk(c, '/persons/filter', { company })).toEqual(expected);
      expect((await c.post('/persons/filter/count', body)).body.total).toBe(expectedWithSeniority);
      expect(expectedWithSeniority).toBeLessThan(expected.length);
    },
  );

  it('serves the six dictionaries as {data: [{value, label}]}', async () => {
    for (const name of ['industry', 'country', 'region', 'department', 'seniority', 'technology']) {
      const r = await c.get(`/dictionaries/${name}`);
      expect(r.status).toBe(200);
      expect(r.body.data).toEqual(DICTIONARIES[name as keyof typeof DICTIONARIES]);
    }
    const industry = ((await c.get('/dictionaries/industry')).body.data as { value: string }[]).map((e) => e.value);
    expect(industry).toContain('software');
    expect(industry.length).toBeGreaterThanOrEqual(28);
    const countries = ((await c.get('/dictionaries/country')).body.data as { value: string }[]).map((e) => e.value);
    expect(countries).toEqual(expect.arrayContaining(['DE', 'AT', 'CH', 'US', 'GB', 'FR']));
    expect((await c.get('/dictionaries/colour')).status).toBe(404);
  });

  it('serves compliance, personalization and intent-topic settings', async () => {
    for (const name of ['compliance', 'personalization', 'intent-topics']) {
      const r = await c.get(`/settings/${name}`);
      expect(r.status).toBe(200);
      expect(r.body.data).toMatchObject({ accountId: 'demo' });
    }
    expect((await c.get('/settings/billing')).status).toBe(404);
  });

  it('is deterministic by seed', async () => {
    const same = await startSalesIntelEmulator({ companies: 2000, persons: 4000, seed: 11 });
    const other = await startSalesIntelEmulator({ companies: 2000, persons: 4000, seed: 12 });
    try {
      const mine = await firstPage(emu, '/persons/filter?limit=30&view=contacts,skills');
      expect(await firstPage(same, '/persons/filter?limit=30&view=contacts,skills')).toEqual(mine);
      expect(await firstPage(other, '/persons/filter?limit=30&view=contacts,skills')).not.toEqual(mine);
      expect(await firstPage(same, '/companies/filter?limit=30')).toEqual([...companies.values()].slice(0, 30));
    } finally {
      await Promise.all([same.close(), other.close()]);
    }
  });
});

describe('sales-intel emulator: base path and record style', () => {
  it('serves every route, the token endpoint and controls under basePath only', async () => {
    const emu = await startSalesIntelEmulator({ companies: 50, persons: 50, basePath: '/api/v2/' });
    try {
      expect(emu.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v2$/);
      expect(emu.tokenUrl).toBe(`${emu.url}/oauth/token`);
      const c = await client(emu);
      expect((await c.post('/companies/filter/count', {})).body.total).toBe(50);
      expect((await call(emu, undefined, 'GET', '/health')).status).toBe(200);
      const root = emu.url.replace('/api/v2', '');
      expect((await fetch(`${root}/health`)).status).toBe(404);
      expect(
        (
          await fetch(`${root}/companies/filter/count`, {
            method: 'POST',
            headers: { authorization: `Bearer ${c.token}` },
            body: '{}',
          })
        ).status,
      ).toBe(404);
      expect((await fetch(`${emu.url}/__emulator/stats`)).status).toBe(200);
    } finally {
      await emu.close();
    }
  });

  it("recordStyle 'snake' renames record fields, not filter keys", async () => {
    const emu = await startSalesIntelEmulator({ companies: 50, persons: 50, recordStyle: 'snake' });
    try {
      const c = await client(emu);
      const p = (
        (
          await c.post('/persons/filter?limit=1&view=demographics,pastCompanies', {
            person: {
              seniority: { include: ['vp', 'owner', 'c_level', 'director', 'manager', 'senior', 'entry', 'intern'] },
            },
          })
        ).body.data as Rec[]
      )[0]!;
      expect(p).toHaveProperty('company_id');
      expect(p).toHaveProperty('job_title');
      expect(p).toHaveProperty('full_name');
      expect(p).not.toHaveProperty('companyId');
      expect(p.demographics).toHaveProperty('time_zone');
      expect((p.past_companies as Rec[])[0]).toHaveProperty('company_id');
      const co = (
        (await c.post('/companies/filter?limit=1', { company: { foundedYear: { gte: 1800 } } })).body.data as Rec[]
      )[0]!;
      expect(co).toHaveProperty('founded_year');
      expect(co).toHaveProperty('naics_codes');
    } finally {
      await emu.close();
    }
  });
});
