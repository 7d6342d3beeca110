import { describe, expect, it } from 'vitest';
import { createHubSpotSink, type ObjectTarget } from '../../../src/crm/index.js';
import { DEFAULT_HUBSPOT_TOKEN } from '../../../src/emulators/hubspot/index.js';
import { useHubSpot } from './hubspot-fixture.js';

const companies: ObjectTarget = {
  object: 'companies',
  matchField: 'prospect_sync_id',
  fields: ['name', 'domain', 'numberofemployees'],
};
const contacts: ObjectTarget = {
  object: 'contacts',
  matchField: 'prospect_sync_id',
  fields: ['email', 'firstname', 'lastname'],
  associate: { object: 'companies', matchField: 'prospect_sync_id' },
};

const setup = useHubSpot();

const people = (n: number, from = 0) =>
  Array.from({ length: n }, (_, i) => ({
    key: `p_${from + i}`,
    properties: { email: `person${from + i}@example.com`, firstname: `Ünïcødé ${from + i} 👩‍💻` },
  }));

describe('HubSpot sink: prepare', () => {
  it(
    'creates a missing match property as unique, refuses a non-unique one, names missing mapped ' + 'properties',
    async () => {
      const { emu, sink } = await setup();
      await sink.prepare(companies);
      expect(emu.state.tables.get('companies')?.properties.get('prospect_sync_id')?.hasUniqueValue).toBe(true);
      await sink.prepare(companies); // idempotent
      const nonUnique = await sink.prepare({ ...companies, matchField: 'domain' }).catch((e: unknown) => e);
      expect(nonUnique).toMatchObject({ code: 'crm_schema_mismatch' });
      const missing = await sink
        .prepare({ ...companies, fields: ['name', 'revenue_x', 'tier_y'] })
        .catch((e: unknown) => e);
      expect(missing).toMatchObject({ code: 'crm_schema_mismatch' });
      expect((missing as Error).message).toMatch(/revenue_x, tier_y/);
      await sink.prepare(contacts);
      expect(emu.state.tables.get('contacts')?.properties.get('prospect_sync_id')?.hasUniqueValue).toBe(true);
    },
  );
});

describe('HubSpot sink: two runs preparing one portal at once', () => {
  it(
    'both find the match property missing; the one whose create is refused as existing reads it and goes ' + 'on',
    async () => {
      // 50 ms per answer: both property lists are answered before either create reaches the portal.
      const { emu, sink, redis, keyPrefix } = await setup({ faults: { latencyMs: 50 } });
      const other = createHubSpotSink({
        accessToken: DEFAULT_HUBSPOT_TOKEN,
        baseUrl: `${emu.url}/`,
        requestsPer10s: 190,
        retry: { baseDelayMs: 5 },
        redis,
        keyPrefix,
      });
      try {
        await Promise.all([sink.prepare(companies), other.prepare(companies)]);
      } finally {
        await other.close();
      }
      expect(emu.stats.byRoute['properties.create']).toBe(2); // the race happened: one 201, one 409
      expect(emu.stats.byRoute['properties.get']).toBe(1);
      expect(emu.state.tables.get('companies')?.properties.get('prospect_sync_id')?.hasUniqueValue).toBe(true);
    },
  );
});

describe('HubSpot sink: upsert', () => {
  it('is idempotent: the same batch twice creates nothing new', async () => {
    const { emu, sink } = await setup();
    await sink.prepare(contacts);
    const first = await sink.upsert({ ...contacts, associate: undefined }, people(150));
    expect(first.every((o) => o.status === 'created')).toBe(true);
    const second = await sink.upsert({ ...contacts, associate: undefined }, people(150));
    expect(second.every((o) => o.status === 'updated')).toBe(true);
    expect(emu.state.count('contacts')).toBe(150);
    expect(emu.stats.byRoute.upsert).toBe(4); // 100 + 50, twice
    expect(emu.state.find('contacts', 'prospect_sync_id', 'p_7')?.properties.firstname).toBe('Ünïcødé 7 👩‍💻');
  });

  it('one bad record (207) never blocks or loses the other 99, and its reason carries no contact detail', async () => {
    const { emu, sink } = await setup();
    await sink.prepare(contacts);
    const records = people(100);
    records[42] = { key: 'p_42', properties: { email: 'broken-address', firstname: 'X' } };
    const out = await sink.upsert({ ...contacts, associate: undefined }, records);
    expect(out.map((o) => o.key)).toEqual(records.map((r) => r.key));
    expect(out.filter((o) => o.status === 'created')).toHaveLength(99);
    expect(out[42]).toMatchObject({ status: 'rejected', code: 'INVALID_EMAIL' });
    expect(JSON.stringify(out[42])).not.toContain('broken-address');
    expect(emu.state.count('contacts')).toBe(99);
  });

  it('splits a batch that fails whole (400) to isolate the bad records', async () => {
    const { emu, sink } = await setup();
    await sink.prepare(contacts);
    emu.faults.reject = { values: new Set(['p_13', 'p_77']), mode: 'batch' };
    const out = await sink.upsert({ ...contacts, associate: undefined }, people(100));
    expect(out.filter((o) => o.status === 'rejected').map((o) => o.key)).toEqual(['p_13', 'p_77']);
    expect(out.filter((o) => o.status === 'created')).toHaveLength(98);
    expect(emu.state.count('contacts')).toBe(98);
    // binary split: far fewer calls than one per record
    expect(emu.stats.byRoute.upsert ?? 0).toBeLessThan(40);
  });

  it('links contacts to their companies (v4); a company not in HubSpot is a linkError, not a reject', async () => {
    const { emu, sink } = await setup();
    await sink.prepare(companies);
    await sink.prepare(contacts);
    await sink.upsert(companies, [
      { key: 'c_1', properties: { name: 'Acme' } },
      { key: 'c_2', properties: { name: 'Globex' } },
    ]);
    const out = await sink.upsert(contacts, [
      { ...people(1, 0)[0]!, companyKey: 'c_1' },
      { ...people(1, 1)[0]!, companyKey: 'c_2' },
      { ...people(1, 2)[0]!, companyKey: 'c_404' },
      people(1, 3)[0]!,
    ]);
    expect(out.map((o) => o.status)).toEqual(['created', 'created', 'created', 'created']);
    expect(out[2]).toMatchObject({ linkError: expect.stringContaining('c_404') as unknown });
    expect(out[0]).not.toHaveProperty('linkError');
    const companyId = (key: string) => emu.state.find('companies', 'prospect_sync_id', key)?.id;
    const contactId = (key: string) => emu.state.find('contacts', 'prospect_sync_id', key)?.id;
    expect(emu.state.associations.map((a) => [a.fromId, a.toId, a.typeId])).toEqual([
      [contactId('p_0'), companyId('c_1'), 1],
      [contactId('p_1'), companyId('c_2'), 1],
    ]);
  });

  it('round-trips odd Unicode values byte for byte', async () => {
    const { emu, sink } = await setup();
    await sink.prepare(contacts);
    const odd = [
      'nul\u0000byte',
      'rtl \u202Eevil',
      'e\u0301 combining',
      '𝔘𝔫𝔦𝔠𝔬𝔡𝔢',
      'lone \uD800 surrogate',
      '"quotes" & <tags>',
      ' spaced ',
    ];
    const records = odd.map((firstname, i) => ({ key: `u_${i}`, properties: { firstname } }));
    const out = await sink.upsert({ ...contacts, associate: undefined }, records);
    expect(out.every((o) => o.status === 'created')).toBe(true);
    odd.forEach((value, i) =>
      expect(emu.state.find('contacts', 'prospect_sync_id', `u_${i}`)?.properties.firstname).toBe(value),
    );
    const current = await sink.readCurrent(
      contacts,
      records.map((r) => r.key),
      ['firstname'],
    );
    expect(records.map((r) => current.get(r.key)?.firstname)).toEqual(odd);
  });

  it('reads current values in batches of 100 by the match property', async () => {
    const { emu, sink } = await setup();
    await sink.prepare(contacts);
    await sink.upsert({ ...contacts, associate: undefined }, people(120));
    const before = emu.stats.byRoute.read ?? 0;
    const current = await sink.readCurrent(
      contacts,
      [...people(120).map((p) => p.key), 'p_missing'],
      ['firstname', 'lastname'],
    );
    expect(current.size).toBe(120);
    expect(current.get('p_101')).toEqual({ firstname: 'Ünïcødé 101 👩‍💻', lastname: null });
    expect((emu.stats.byRoute.read ?? 0) - before).toBe(2);
  });

  it(
    'a match property that does not exist yet (fresh portal, dry run) reads as no records; other refusals still ' +
      'throw',
    async () => {
      const { emu, sink } = await setup();
      const fresh = { ...companies, matchField: 'never_created_id' };
      const current = await sink.readCurrent(fresh, ['c_1', 'c_2'], ['name']);
      expect(current.size).toBe(0);
      expect(emu.state.tables.get('companies')?.properties.has('never_created_id')).toBe(false);
      // the match property exists but is not unique: a schema problem, not "nothing there"
      const nonUnique = await sink
        .readCurrent({ ...companies, matchField: 'domain' }, ['c_1'], ['name'])
        .catch((e: unknown) => e);
      expect(nonUnique).toMatchObject({ code: 'crm_schema_mismatch' });
      emu.faults.missingScopes = new Set(['crm.objects.companies.read']);
      expect(await sink.readCurrent(fresh, ['c_1'], ['name']).catch((e: unknown) => e)).toMatchObject({
        code: 'crm_auth_failed',
      });
    },
  );
});

describe('HubSpot sink: limits and failures', () => {
  it('keeps under the rolling window from the headers and waits out 429s without losing a record', async () => {
    // The server allows 5 requests per 300 ms; the sink is configured higher and must learn the lower limit.
    const { emu, sink } = await setup({ limits: { perTenSeconds: 5, windowMs: 300 } }, { requestsPer10s: 100 });
    await sink.prepare(contacts);
    emu.faults.force429Next = 3;
    const [a, b] = await Promise.all([
      sink.upsert({ ...contacts, associate: undefined }, people(600, 0)),
      sink.upsert({ ...contacts, associate: undefined }, people(600, 600)),
    ]);
    expect([...a!, ...b!].every((o) => o.status === 'created')).toBe(true);
    expect(emu.state.count('contacts')).toBe(1200);
    expect(sink.throttled).toBeGreaterThanOrEqual(3);
    expect(emu.stats.throttled.TEN_SECONDLY_ROLLING).toBe(sink.throttled);
  });

  it('stops with a typed error when the daily limit is reached', async () => {
    const { emu, sink, redis, keyPrefix } = await setup({ limits: { daily: 5 } });
    await sink.prepare(contacts); // 2 property lists + 2 creates
    const err = await sink.upsert({ ...contacts, associate: undefined }, people(300)).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'crm_daily_limit' });
    expect(emu.state.count('contacts')).toBe(100); // the header said 0 left: no wasted call
    expect(emu.stats.throttled.DAILY).toBe(0);
    // Another process on the same portal (same Redis state) is refused without a call.
    const requests = emu.stats.requests;
    const other = createHubSpotSink({ accessToken: DEFAULT_HUBSPOT_TOKEN, baseUrl: emu.url, redis, keyPrefix });
    const refused = await other.upsert({ ...contacts, associate: undefined }, people(10)).catch((e: unknown) => e);
    await other.close();
    expect(refused).toMatchObject({ code: 'crm_daily_limit' });
    expect(emu.stats.requests).toBe(requests);
    // A sink whose governor has not seen the headers (fresh Redis state) learns it from HubSpot's 429 DAILY answer.
    const fresh = createHubSpotSink({
      accessToken: DEFAULT_HUBSPOT_TOKEN,
      baseUrl: emu.url,
      redis,
      keyPrefix: `${keyPrefix}:fresh`,
    });
    const again = await fresh.upsert({ ...contacts, associate: undefined }, people(10)).catch((e: unknown) => e);
    await fresh.close();
    expect(again).toMatchObject({ code: 'crm_daily_limit' });
    expect(emu.stats.throttled.DAILY).toBe(1);
  });

  it('retries 5xx a few times, then fails with crm_unavailable', async () => {
    const { emu, sink } = await setup();
    await sink.prepare(contacts);
    emu.faults.fail5xxNext = 2;
    const out = await sink.upsert({ ...contacts, associate: undefined }, people(10));
    expect(out.every((o) => o.status === 'created')).toBe(true);
    emu.faults.fail5xxNext = 50;
    const err = await sink.upsert({ ...contacts, associate: undefined }, people(10, 10)).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'crm_unavailable' });
  });

  it('fails with crm_auth_failed on a refused token, without the token in the message', async () => {
    const { sink } = await setup({}, { accessToken: 'pat-secret-value' });
    const err = await sink.prepare(contacts).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'crm_auth_failed' });
    expect(JSON.stringify(err)).not.toContain('pat-secret-value');
  });
});
