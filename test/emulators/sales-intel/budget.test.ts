import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSalesIntelEmulator, type SalesIntelEmulator } from '../../../src/emulators/sales-intel/index.js';
import { client, type Client } from './emulator-client.js';

describe('sales-intel emulator: search tokens and credits', () => {
  let emu: SalesIntelEmulator;
  let c: Client;
  beforeAll(async () => {
    emu = await startSalesIntelEmulator({
      companies: 1000,
      persons: 2000,
      accounts: [
        {
          clientId: 'demo-client',
          clientSecret: 'demo-secret',
          accountId: 'demo',
          tokenAllotment: 250,
          tokenPeriodSeconds: 3600,
        },
        { clientId: 'b', clientSecret: 'b', accountId: 'b', tokenAllotment: 1000, tokenPeriodSeconds: 1 },
      ],
    });
    c = await client(emu);
  });
  afterAll(() => emu.close());

  it(
    'charges one token per record, reports X-Rate-Results-*, admits while any balance remains, then 402 ' + 'exhausted',
    async () => {
      const first = await c.post('/companies/filter?limit=100', {});
      expect(first.headers.get('x-rate-results-limit')).toBe('250');
      expect(first.headers.get('x-rate-results-limit-remaining')).toBe('150');
      const reset = Number(first.headers.get('x-rate-results-limit-reset'));
      expect(reset).toBeGreaterThan(3590);
      expect(reset).toBeLessThanOrEqual(3600);
      const second = await c.post('/persons/filter?limit=100', {});
      expect(second.headers.get('x-rate-results-limit-remaining')).toBe('50');
      // 50 left, asks for 100: admitted, full page, balance to zero (never negative).
      const last = await c.post('/companies/filter?limit=100', {});
      expect(last.status).toBe(200);
      expect(last.body.data as unknown[]).toHaveLength(100);
      expect(last.headers.get('x-rate-results-limit-remaining')).toBe('0');
      const refused = await c.post('/companies/filter?limit=1', {});
      expect(refused.status).toBe(402);
      expect(refused.body).toMatchObject({ error: 'insufficient_budget', reason: 'exhausted' });
      expect(refused.body.retryAfter).toBeGreaterThan(3590);
      expect(refused.headers.get('x-rate-results-limit-remaining')).toBe('0');
      expect(refused.headers.get('x-rate-results-limit')).toBe('250');
      expect(refused.headers.get('ratelimit-limit')).toBe('500');
      // Counts and dictionaries cost nothing and still work.
      expect((await c.post('/companies/filter/count', {})).status).toBe(200);
      expect(emu.stats('demo').tokensCharged).toBe(300);
      expect(emu.stats('demo').served402).toBe(1);
    },
  );

  it('setTokenBalance() restores a balance and its reset', async () => {
    emu.setTokenBalance('demo', 5, 100);
    const r = await c.post('/companies/filter?limit=3', {});
    expect(r.headers.get('x-rate-results-limit-remaining')).toBe('2');
    expect(Number(r.headers.get('x-rate-results-limit-reset'))).toBeLessThanOrEqual(100);
  });

  it('renews the allotment when the period ends', async () => {
    const b = await client(emu, 'b', 'b');
    emu.setTokenBalance('b', 0, 0.3);
    expect((await b.post('/companies/filter?limit=1', {})).status).toBe(402);
    await new Promise((r) => setTimeout(r, 350));
    const again = await b.post('/companies/filter?limit=1', {});
    expect(again.status).toBe(200);
    expect(again.headers.get('x-rate-results-limit-remaining')).toBe('999');
  });

  it('stale_reset answers 402 with retryAfter 0; store_unavailable answers 402 store_unavailable', async () => {
    emu.setTokenBalance('demo', 100);
    emu.faults.set({ budgetMode: { demo: 'stale_reset' } });
    const stale = await c.post('/companies/filter?limit=1', {});
    expect(stale.status).toBe(402);
    expect(stale.body).toMatchObject({ error: 'insufficient_budget', reason: 'stale_reset', retryAfter: 0 });
    expect(stale.headers.get('x-rate-results-limit-reset')).toBe('0');
    emu.faults.set({ budgetMode: { demo: 'store_unavailable' } });
    const down = await c.post('/persons/filter?limit=1', {});
    expect(down.status).toBe(402);
    expect(down.body).toMatchObject({ error: 'insufficient_budget', reason: 'store_unavailable' });
    expect(typeof down.body.retryAfter).toBe('number');
    expect(down.headers.get('x-rate-results-limit-remaining')).toBeNull();
    // Another account is unaffected.
    expect((await (await client(emu, 'b', 'b')).post('/companies/filter?limit=1', {})).status).toBe(200);
    emu.faults.set({ budgetMode: { demo: 'normal' } });
    expect((await c.post('/companies/filter?limit=1', {})).status).toBe(200);
  });

  it('charges credits only for persons returned with contacts', async () => {
    emu.setTokenBalance('demo', 10_000);
    emu.resetStats();
    const plain = await c.post('/persons/filter?limit=20&view=demographics,education,pastCompanies,skills,events', {});
    const person = (plain.body.data as Record<string, unknown>[])[0]!;
    for (const seg of ['demographics', 'education', 'pastCompanies', 'skills', 'events'])
      expect(person).toHaveProperty(seg);
    expect(person).not.toHaveProperty('contacts');
    expect(emu.stats('demo').creditsCharged).toBe(0);
    await c.post('/companies/filter?limit=30', {});
    expect(emu.stats('demo').creditsCharged).toBe(0);
    const revealed = await c.post('/persons/filter?limit=17&view=contacts', {});
    const withContacts = (revealed.body.data as Record<string, { email: string }>[])[0]!;
    expect(withContacts.contacts!.email).toMatch(/@/);
    expect(withContacts).not.toHaveProperty('skills');
    expect(emu.stats('demo').creditsCharged).toBe(17);
    const none = await c.post('/persons/filter?limit=5', {});
    expect(Object.keys((none.body.data as object[])[0]!).sort()).toEqual([
      'companyId',
      'country',
      'department',
      'firstName',
      'fullName',
      'id',
      'jobTitle',
      'lastName',
      'region',
      'seniority',
    ]);
    expect(emu.stats('demo').creditsCharged).toBe(17);
    expect(emu.stats('demo').tokensCharged).toBe(20 + 30 + 17 + 5);
  });
});
