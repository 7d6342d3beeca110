import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  answeredBefore,
  compileFieldMapping,
  createCrmWriter,
  landedAny,
  CHANGE_HASH_TTL_SECONDS,
  createRejectStore,
  mapRecord,
  MAX_PENDING_REJECTS,
  MAX_REJECT_HISTORY,
  REJECT_TTL_SECONDS,
  type CrmWriterOptions,
  type FieldMappingConfig,
  type HubSpotSink,
} from '../../../src/crm/index.js';
import type { HubSpotEmulator } from '../../../src/emulators/hubspot/index.js';
import { changeHashKey, changeHashKeys } from '../../../src/crm/change-detector.js';
import { rejectKeys } from '../../../src/crm/reject-store.js';
import { recordStateKeys } from '../../../src/shared/record-state.js';
import { testRedis } from '../../helpers/redis.js';
import { useHubSpot } from '../hubspot/hubspot-fixture.js';

let redis: Redis;
let prefix: string;
let cleanup: () => Promise<void>;
let emu: HubSpotEmulator;
let sink: HubSpotSink;
const setup = useHubSpot();

beforeEach(async () => {
  ({ redis, prefix, cleanup } = await testRedis('crm-writer'));
  ({ emu, sink } = await setup({}, { retry: { baseDelayMs: 2, serverAttempts: 2 } }));
});
afterEach(async () => {
  await cleanup();
});

const writer = (extra: Partial<CrmWriterOptions> = {}) =>
  createCrmWriter({ sink, redis, keyPrefix: prefix, destination: 'crm', searchName: 'dach', ...extra });

const companyConfig: FieldMappingConfig = {
  matchOn: { field: 'prospect_sync_id', from: 'id' },
  fields: {
    name: 'name',
    domain: { from: 'website', transform: 'domain' },
    numberofemployees: 'headcount',
    industry: { from: 'industry', overwrite: 'ifEmpty' },
  },
};
const companyMapping = compileFieldMapping(companyConfig, { object: 'companies' });
const companiesOf = (n: number, suffix = '') =>
  Array.from({ length: n }, (_, i) => ({
    id: `c_${i}`,
    name: `Firma ${i}${suffix} — GmbH & Co. KG`,
    website: `https://www.firma${i}.de/`,
    headcount: 10 + i,
    industry: 'software',
  }));

const personConfig: FieldMappingConfig = {
  matchOn: { field: 'prospect_sync_id', from: 'id' },
  fields: { email: 'contacts.email', firstname: 'firstName' },
  associate: { company: { from: 'companyId' } },
};
const personMapping = compileFieldMapping(personConfig, {
  object: 'contacts',
  associate: { object: 'companies', matchField: 'prospect_sync_id' },
});

describe('CRM writer', () => {
  it('sends nothing for unchanged records, only changed ones, and everything on full resync', async () => {
    const w = writer();
    await w.prepare(companyMapping.target);
    const first = await w.write(companiesOf(150), companyMapping);
    expect(first).toMatchObject({ created: 150, updated: 0, unchanged: 0, rejected: 0 });
    const upserts = emu.stats.byRoute.upsert ?? 0;

    const second = await w.write(companiesOf(150), companyMapping);
    expect(second).toMatchObject({ created: 0, updated: 0, unchanged: 150 });
    expect(emu.stats.byRoute.upsert ?? 0).toBe(upserts);
    expect(emu.state.count('companies')).toBe(150);

    const changed = companiesOf(150);
    changed[5] = { ...changed[5]!, name: 'Renamed' };
    const third = await w.write(changed, companyMapping);
    expect(third).toMatchObject({ updated: 1, unchanged: 149 });
    expect(third.outcomes[5]).toMatchObject({ key: 'c_5', status: 'updated' });
    expect(emu.state.find('companies', 'prospect_sync_id', 'c_5')?.properties.name).toBe('Renamed');

    const resync = await writer({ fullResync: true }).write(changed, companyMapping);
    expect(resync).toMatchObject({ created: 0, updated: 150, unchanged: 0 });
    expect(emu.state.count('companies')).toBe(150);
  });

  it('remembers a record only after HubSpot accepted it', async () => {
    const w = writer();
    await w.prepare(companyMapping.target);
    emu.faults.fail5xxNext = 10;
    await expect(w.write(companiesOf(20), companyMapping)).rejects.toMatchObject({ code: 'crm_unavailable' });
    emu.faults.fail5xxNext = 0;
    const retry = await w.write(companiesOf(20), companyMapping);
    expect(retry).toMatchObject({ created: 20, unchanged: 0 });
  });

  it('a write failing after HubSpot took a chunk carries what it took; one failing first: nothing taken', async () => {
    await writer().prepare(companyMapping.target);
    let calls = 0;
    // The second upsert call fails (as when Redis refuses what follows the first chunk's answer).
    const failing = Object.assign(Object.create(sink) as HubSpotSink, {
      upsert: (...args: Parameters<HubSpotSink['upsert']>) =>
        ++calls === 2 ? Promise.reject(new Error('OOM command not allowed')) : sink.upsert(...args),
    });
    const w = writer({ sink: failing });
    const err: unknown = await w.write(companiesOf(150), companyMapping).catch((e: unknown) => e);
    expect(err).toMatchObject({ message: 'OOM command not allowed' });
    const answered = answeredBefore(err);
    expect(answered?.filter((o) => o?.status === 'created').map((o) => o?.key)).toEqual(
      companiesOf(100).map((c) => c.id),
    );
    expect(emu.state.count('companies')).toBe(100);
    calls = 1;
    const first: unknown = await w.write(companiesOf(20, ' renamed'), companyMapping).catch((e: unknown) => e);
    expect(first).toMatchObject({ message: 'OOM command not allowed' });
    expect(landedAny(answeredBefore(first) ?? [])).toBe(false);
  });

  it('fills ifEmpty fields only where HubSpot has no value, and writes never-fields only on create', async () => {
    const w = writer();
    await w.prepare(companyMapping.target);
    // A salesperson already set industry on c_0 in HubSpot.
    await sink.upsert(companyMapping.target, [{ key: 'c_0', properties: { industry: 'Manual Value' } }]);
    const never = compileFieldMapping(
      { ...companyConfig, fields: { ...companyConfig.fields, description: { from: 'name', overwrite: 'never' } } },
      { object: 'companies' },
    );
    const result = await w.write(companiesOf(3), never);
    expect(result).toMatchObject({ created: 2, updated: 1 });
    expect(emu.state.find('companies', 'prospect_sync_id', 'c_0')?.properties).toMatchObject({
      industry: 'Manual Value',
      name: 'Firma 0 — GmbH & Co. KG',
      domain: 'firma0.de',
    });
    expect(emu.state.find('companies', 'prospect_sync_id', 'c_0')?.properties.description).toBeUndefined();
    expect(emu.state.find('companies', 'prospect_sync_id', 'c_1')?.properties).toMatchObject({
      industry: 'software',
      description: 'Firma 1 — GmbH & Co. KG',
    });
    // The skipped ifEmpty value does not make the record look changed forever.
    expect(await w.write(companiesOf(3), never)).toMatchObject({ unchanged: 3 });
  });

  it('keeps rejects per search with the reason (no contact details), retries them next run, lists them', async () => {
    const w = writer();
    await w.prepare(companyMapping.target);
    await w.write([{ id: 'c_1', name: 'Acme' }], companyMapping);
    await w.prepare(personMapping.target);
    const people = [
      { id: 'p_1', firstName: 'Ana', companyId: 'c_1', contacts: { email: 'ana@acme.example' } },
      { id: 'p_2', firstName: 'Bob', companyId: 'c_1', contacts: { email: 'bob(at)acme' } },
      { firstName: 'No Id' },
    ];
    const first = await w.write(people, personMapping);
    expect(first).toMatchObject({ created: 1, rejected: 2 });
    const rejects = createRejectStore(redis, prefix);
    const listed = await rejects.list('dach');
    // Newest first: the CRM's reject came after the mapping reject.
    expect(listed.map((r) => [r.key, r.code])).toEqual([
      ['p_2', 'INVALID_EMAIL'],
      ['#2', 'missing_match_key'],
    ]);
    expect(listed[0]?.reason).toMatch(/Email address \[value\] is invalid/);
    expect(JSON.stringify(await redis.lrange(`${prefix}:crm:rejects:dach:history`, 0, -1))).not.toContain(
      'bob(at)acme',
    );
    expect(await rejects.retryable('dach')).toContain('p_2');

    // Next run: p_1 unchanged, p_2 is sent again (not "unchanged") and now passes.
    const fixed = [people[0]!, { ...people[1]!, contacts: { email: 'bob@acme.example' } }];
    const second = await w.write(fixed, personMapping);
    expect(second).toMatchObject({ unchanged: 1, created: 1, rejected: 0 });
    expect(await rejects.retryable('dach')).not.toContain('p_2');
    // Other searches do not see these rejects.
    expect(await rejects.list('other')).toEqual([]);
    // Associated to the company.
    expect(emu.state.associations).toHaveLength(2);
  });

  it('sends a record whose company link failed again next run', async () => {
    const w = writer();
    await w.prepare(personMapping.target);
    const person = [{ id: 'p_9', firstName: 'Cy', companyId: 'c_late', contacts: { email: 'cy@late.example' } }];
    expect(await w.write(person, personMapping)).toMatchObject({ created: 1, linkErrors: 1 });
    await w.write([{ id: 'c_late', name: 'Late Inc' }], companyMapping);
    expect(await w.write(person, personMapping)).toMatchObject({ updated: 1, linkErrors: 0 });
    expect(emu.state.associations).toHaveLength(1);
    expect(await w.write(person, personMapping)).toMatchObject({ unchanged: 1 });
  });

  it(
    'a keyless reject is listed but never waits for a retry; a key accepted with a failed link leaves the retry ' +
      'set',
    async () => {
      const w = writer();
      await w.prepare(personMapping.target);
      const rejects = createRejectStore(redis, prefix);
      const bad = { id: 'p_5', firstName: 'Di', companyId: 'c_nowhere', contacts: { email: 'di(at)x' } };
      expect(await w.write([bad, { firstName: 'No Id' }], personMapping)).toMatchObject({ rejected: 2 });
      expect((await rejects.list('dach')).map((r) => r.key)).toEqual(['p_5', '#1']);
      expect(await rejects.retryable('dach')).toEqual(['p_5']);
      expect(await rejects.pendingCount('dach')).toBe(1);

      // Fixed in the source, written, but its company is not in HubSpot: written is written.
      const fixed = { ...bad, contacts: { email: 'di@x.example' } };
      expect(await w.write([fixed], personMapping)).toMatchObject({ created: 1, linkErrors: 1 });
      expect(await rejects.pendingCount('dach')).toBe(0);
    },
  );

  it("two searches mapping different fields onto one object do not re-send each other's records", async () => {
    const names = compileFieldMapping(
      { matchOn: { field: 'prospect_sync_id', from: 'id' }, fields: { name: 'name' } },
      { object: 'companies' },
    );
    const domains = compileFieldMapping(
      {
        matchOn: { field: 'prospect_sync_id', from: 'id' },
        fields: { domain: { from: 'website', transform: 'domain' } },
      },
      { object: 'companies' },
    );
    const a = writer({ searchName: 'names' });
    const b = writer({ searchName: 'domains' });
    await a.prepare(names.target);
    expect(await a.write(companiesOf(5), names)).toMatchObject({ created: 5 });
    expect(await b.write(companiesOf(5), domains)).toMatchObject({ updated: 5 });
    const upserts = emu.stats.byRoute.upsert ?? 0;
    expect(await a.write(companiesOf(5), names)).toMatchObject({ unchanged: 5 });
    expect(await b.write(companiesOf(5), domains)).toMatchObject({ unchanged: 5 });
    expect(emu.stats.byRoute.upsert ?? 0).toBe(upserts);
    // Hashes expire when nobody writes that field set any more.
    const portal = `hubspot:${emu.portalId}`;
    const hashKeys = [
      changeHashKey(prefix, 'crm', names.target, portal),
      changeHashKey(prefix, 'crm', domains.target, portal),
    ];
    expect(new Set(hashKeys).size).toBe(2);
    for (const key of hashKeys)
      expect(await redis.ttl(changeHashKeys(key).meta)).toBeGreaterThan(CHANGE_HASH_TTL_SECONDS - 60);
  });

  it(
    'reads hashes stored by the previous release (SHA-256 form) without re-sending, and rewrites them in the new ' +
      'form',
    async () => {
      const w = writer();
      await w.prepare(companyMapping.target);
      await w.write(companiesOf(3), companyMapping);
      const key = changeHashKey(prefix, 'crm', companyMapping.target, `hubspot:${emu.portalId}`);
      const store = changeHashKeys(key);
      const bucketValues = async (): Promise<string[]> => {
        const buckets = await redis.keys(`${store.buckets}*`);
        return (await Promise.all(buckets.map((b) => redis.hvals(b)))).flat();
      };
      expect(await bucketValues()).toHaveLength(3);
      expect((await bucketValues()).every((v) => v.startsWith('3'))).toBe(true);
      // What the previous releases stored: one flat hash (field = match key) of '2', then 6 chars of base64url SHA-256
      // of companyKey and of each sorted field.
      await redis.unlink(store.meta, ...(await redis.keys(`${store.buckets}*`)));
      const sha = (v: unknown): string =>
        createHash('sha256')
          .update(JSON.stringify(v ?? null))
          .digest('base64url')
          .slice(0, 6);
      const fields = [...companyMapping.target.fields].sort();
      for (const source of companiesOf(3)) {
        const mapped = mapRecord(companyMapping, source);
        if (!mapped.ok) throw new Error('unmappable fixture');
        await redis.hset(
          key,
          mapped.record.key,
          `2${sha(mapped.record.companyKey ?? null)}${fields.map((f) => sha(mapped.record.properties[f])).join('')}`,
        );
      }
      const upserts = emu.stats.byRoute.upsert ?? 0;
      expect(await w.write(companiesOf(3), companyMapping, { dryRun: true })).toMatchObject({ unchanged: 3 });
      // dry runs write nothing
      expect(Object.values(await redis.hgetall(key)).every((v) => v.startsWith('2'))).toBe(true);
      expect(await bucketValues()).toEqual([]);

      const changed = companiesOf(3);
      changed[1] = { ...changed[1]!, name: 'Renamed' };
      expect(await w.write(changed, companyMapping)).toMatchObject({ unchanged: 2, updated: 1 });
      expect(emu.stats.byRoute.upsert ?? 0).toBe(upserts + 1);
      // Moved into the buckets in the current form; the flat hash is drained.
      expect(await redis.exists(key)).toBe(0);
      expect(await bucketValues()).toHaveLength(3);
      expect((await bucketValues()).every((v) => v.startsWith('3'))).toBe(true);
      expect(await w.write(changed, companyMapping)).toMatchObject({ unchanged: 3 });
      expect(emu.stats.byRoute.upsert ?? 0).toBe(upserts + 1);
    },
  );

  it("after an upgrade the search's records are unchanged; their fingerprints then live in its state", async () => {
    // The release before: every object's change hashes per mapping.
    const before = writer();
    await before.prepare(companyMapping.target);
    expect(await before.write(companiesOf(40), companyMapping)).toMatchObject({ created: 40 });
    const w = writer({ searchObject: 'companies' });
    const upserts = emu.stats.byRoute.upsert ?? 0;
    expect(await w.write(companiesOf(40), companyMapping)).toMatchObject({ unchanged: 40 });
    expect(emu.stats.byRoute.upsert ?? 0).toBe(upserts);
    const portal = `hubspot:${emu.portalId}`;
    const own = recordStateKeys(prefix, 'dach', portal);
    expect(Number(await redis.hget(own.meta, 'n'))).toBe(40);
    // Persons linked by this companies search are not its records: change hashes per mapping, as before.
    await w.prepare(personMapping.target);
    const person = { id: 'p_1', firstName: 'Ana', companyId: 'c_1', contacts: { email: 'ana@acme.example' } };
    expect(await w.write([person], personMapping)).toMatchObject({ created: 1 });
    expect(await redis.exists(changeHashKeys(changeHashKey(prefix, 'crm', personMapping.target, portal)).meta)).toBe(1);
    expect(Number(await redis.hget(own.meta, 'n'))).toBe(40);
    expect(await w.write([person], personMapping)).toMatchObject({ unchanged: 1 });
    // A field added to the mapping sends every record again, once.
    const more = compileFieldMapping(
      { ...companyConfig, fields: { ...companyConfig.fields, city: 'name' } },
      { object: 'companies' },
    );
    await w.prepare(more.target);
    expect(await w.write(companiesOf(40), more)).toMatchObject({ updated: 40 });
    expect(await w.write(companiesOf(40), more)).toMatchObject({ unchanged: 40 });
  });

  it('dry run reads but writes nothing: no CRM writes, no hashes, no rejects', async () => {
    const w = writer();
    await w.prepare(companyMapping.target);
    await w.write(companiesOf(2), companyMapping);
    const dry = await w.write([...companiesOf(2, ' v2'), { id: 'c_new', name: 'New' }], companyMapping, {
      dryRun: true,
    });
    expect(dry).toMatchObject({ created: 1, updated: 2 });
    expect(emu.state.count('companies')).toBe(2);
    expect(emu.state.find('companies', 'prospect_sync_id', 'c_0')?.properties.name).toBe('Firma 0 — GmbH & Co. KG');
    expect(await w.write(companiesOf(2, ' v2'), companyMapping)).toMatchObject({ updated: 2 });
  });

  it('sends one copy of a key that appears twice in a write (HubSpot refuses duplicate ids)', async () => {
    const w = writer();
    await w.prepare(companyMapping.target);
    const result = await w.write(
      [
        { id: 'c_1', name: 'Old' },
        { id: 'c_2', name: 'Two' },
        { id: 'c_1', name: 'New' },
      ],
      companyMapping,
    );
    expect(result).toMatchObject({ created: 2, duplicates: 1 });
    expect(result.outcomes.map((o) => o.status)).toEqual(['duplicate', 'created', 'created']);
    expect(emu.state.find('companies', 'prospect_sync_id', 'c_1')?.properties.name).toBe('New');
  });
});

describe('reject store', () => {
  it('keeps the last 1,000 rejects, newest first', async () => {
    const store = createRejectStore(redis, prefix);
    const at = new Date().toISOString();
    for (let batch = 0; batch < 3; batch++) {
      await store.add(
        's',
        Array.from({ length: 400 }, (_, i) => ({
          key: `k${batch * 400 + i}`,
          object: 'contacts',
          code: 'X',
          reason: 'r',
          at,
        })),
      );
    }
    const all = await store.list('s', { limit: 5000 });
    expect(all).toHaveLength(MAX_REJECT_HISTORY);
    expect(all[0]?.key).toBe('k1199');
    expect(all.at(-1)?.key).toBe('k200');
    expect(await store.list('s', { limit: 3 })).toHaveLength(3);
    await store.resolve('s', ['k0', 'k1']);
    expect(await store.retryable('s')).toHaveLength(1198);
  });

  it('caps the retry set after each batch, atomically, keeping the newest keys; everything expires', async () => {
    const store = createRejectStore(redis, prefix);
    const entry = (key: string) => ({ key, object: 'contacts', code: 'X', reason: 'r', at: '' });
    await store.add(
      's',
      Array.from({ length: MAX_PENDING_REJECTS - 1 }, (_, i) => entry(`old${i}`)),
    );
    await new Promise((r) => setTimeout(r, 5)); // a later score than the first batch
    await store.add('s', ['new1', 'new2', 'new3'].map(entry));
    expect(await store.pendingCount('s')).toBe(MAX_PENDING_REJECTS);
    const kept = new Set(await store.retryable('s'));
    expect(['new1', 'new2', 'new3'].every((k) => kept.has(k))).toBe(true);
    expect(kept.has('old0')).toBe(false);
    const { history, retry } = rejectKeys(prefix, 's');
    for (const key of [history, retry]) expect(await redis.ttl(key)).toBeGreaterThan(REJECT_TTL_SECONDS - 60);
  });
});
