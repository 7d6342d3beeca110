import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSalesIntelEmulator, type SalesIntelEmulator } from '../../../src/emulators/sales-intel/index.js';
import { client, type Client } from './emulator-client.js';

type Detail = { path?: string; param?: string; message: string };

function details(body: Record<string, unknown>): Detail[] {
  expect(body).not.toHaveProperty('error');
  expect(typeof body.message).toBe('string');
  return body.details as Detail[];
}

describe('sales-intel emulator: 400 validation', () => {
  let emu: SalesIntelEmulator;
  let c: Client;
  beforeAll(async () => {
    emu = await startSalesIntelEmulator({ companies: 300, persons: 600 });
    c = await client(emu);
  });
  afterAll(() => emu.close());

  const bodyCases: [string, string, unknown, string[]][] = [
    ['unknown top-level key', '/companies/filter', { compnay: {} }, ['compnay']],
    ['person filter on company search', '/companies/filter/count', { person: {} }, ['person']],
    ['unknown company key', '/companies/filter', { company: { size: 3 } }, ['company.size']],
    [
      'value outside the dictionary',
      '/companies/filter',
      { company: { industry: { include: ['software', 'sofware'] } } },
      ['company.industry.include[1]'],
    ],
    [
      'wrong type',
      '/companies/filter/count',
      { company: { industry: { include: 'software' } } },
      ['company.industry.include'],
    ],
    ['non-integer headcount', '/companies/filter', { company: { headcount: { gte: 1.5 } } }, ['company.headcount.gte']],
    [
      'gte greater than lte',
      '/companies/filter',
      { company: { headcount: { gte: 50, lte: 10 } } },
      ['company.headcount'],
    ],
    [
      'location type other than hq',
      '/companies/filter',
      { company: { location: { type: 'branch' } } },
      ['company.location.type'],
    ],
    [
      'country outside the dictionary',
      '/companies/filter',
      { company: { location: { type: 'hq', country: { include: ['XX'] } } } },
      ['company.location.country.include[0]'],
    ],
    [
      'unknown technology',
      '/companies/filter',
      { company: { technologies: { include: ['cobol'] } } },
      ['company.technologies.include[0]'],
    ],
    [
      'unknown seniority',
      '/persons/filter',
      { person: { seniority: { include: ['boss'] } } },
      ['person.seniority.include[0]'],
    ],
    ['unknown person key', '/persons/filter/count', { person: { email: {} } }, ['person.email']],
    ['empty include', '/persons/filter', { person: { department: { include: [] } } }, ['person.department.include']],
    [
      'bad sort field',
      '/companies/filter?offset=0',
      { options: { sortFields: [{ field: 'name', direction: 'UP' }] } },
      ['options.sortFields[0].field', 'options.sortFields[0].direction'],
    ],
    ['body not an object', '/companies/filter', [1, 2], ['']],
  ];
  it.each(bodyCases)('body: %s → 400 with the offending paths', async (_name, path, body, paths) => {
    const r = await c.post(path, body);
    expect(r.status).toBe(400);
    expect(details(r.body).map((d) => d.path)).toEqual(paths);
  });

  it('body: malformed JSON → 400 without error code', async () => {
    const res = await fetch(`${emu.url}/companies/filter`, {
      method: 'POST',
      headers: { authorization: `Bearer ${c.token}`, 'content-type': 'application/json' },
      body: '{"company":',
    });
    expect(res.status).toBe(400);
    details((await res.json()) as Record<string, unknown>);
  });

  const queryCases: [string, string, string[]][] = [
    ['limit 0', '/companies/filter?limit=0', ['limit']],
    ['limit 101 (never clamped)', '/companies/filter?limit=101', ['limit']],
    ['limit not an integer', '/companies/filter?limit=5x', ['limit']],
    ['offset -1', '/companies/filter?offset=-1', ['offset']],
    ['offset 10001', '/companies/filter?offset=10001', ['offset']],
    ['cursor and offset together', '/companies/filter?offset=0&cursor=abc', ['cursor']],
    ['cursor over 200 characters', `/companies/filter?cursor=${'a'.repeat(201)}`, ['cursor']],
    ['pagination on a count', '/companies/filter/count?limit=10', ['limit']],
    ['offset on a person count', '/persons/filter/count?offset=0', ['offset']],
    ['unknown segment in view', '/persons/filter?view=contacts,salary', ['view']],
    ['view on a company search', '/companies/filter?view=contacts', ['view']],
    ['unknown query parameter', '/persons/filter?page=2', ['page']],
    ['parameter given twice', '/companies/filter?limit=5&limit=6', ['limit']],
  ];
  it.each(queryCases)('query: %s → 400 listing the parameter', async (_name, path, params) => {
    const r = await c.post(path, {});
    expect(r.status).toBe(400);
    const d = details(r.body);
    expect(d.map((x) => x.param)).toEqual(params);
    expect(d.every((x) => x.message.length > 0)).toBe(true);
  });

  it('accepts the range edges: limit 1 and 100, offset 0 and 10000', async () => {
    for (const q of ['limit=1', 'limit=100', 'offset=0', 'offset=10000&limit=100']) {
      expect((await c.post(`/companies/filter?${q}`, {})).status).toBe(200);
    }
    const def = await c.post('/companies/filter', {});
    expect((def.body.page as { limit: number }).limit).toBe(50);
    expect(def.body.data as unknown[]).toHaveLength(50);
  });

  it('does not charge tokens for a rejected search', async () => {
    emu.resetStats();
    await c.post('/companies/filter?limit=0', {});
    expect(emu.stats('demo').tokensCharged).toBe(0);
    expect(emu.stats('demo').served400).toBe(1);
  });
});
