/**
 * `suppress:` end to end: the real run against the Sales-Intelligence emulator (credits counted by the emulator),
 * real Redis, the HubSpot emulator driven by the real @hubspot/api-client. A person suppressed by id or company is
 * never revealed nor written; one suppressed by email or email domain is revealed (known only then) but never
 * written, and no contact value of theirs reaches Redis or a log line.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { syncSearch } from '../../jobs/sync-search.js';
import { formatSummary } from '../../src/runs/format-summary.js';
import { runSuppressedKey } from '../../src/runs/run-suppressed.js';
import { createLogger } from '../../src/shared/logger.js';
import { contactsSearch, hubspotConfig, startFixture, type Fixture } from './sync-fixture.js';

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

const FILTER = { company: { headcount: { gte: 1 } } };

const CREDITS = '  credits: {maxPerRun: 100000, maxPerDay: 1000000}';

function crmKeys(f: Fixture): Set<string> {
  const table = f.hubspot!.state.tables.get('contacts');
  return new Set([...(table?.objects.values() ?? [])].map((o) => o.properties.prospect_sync_id ?? ''));
}

/** Every value under the test's prefix, as one text (strings, hashes, lists, sets, sorted sets). */
async function redisText(f: Fixture): Promise<string> {
  const parts: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await f.redis.scan(cursor, 'MATCH', `${f.prefix}*`, 'COUNT', 500);
    cursor = next;
    for (const key of keys) {
      const type = await f.redis.type(key);
      parts.push(key);
      if (type === 'string') parts.push((await f.redis.getBuffer(key))?.toString('latin1') ?? '');
      else if (type === 'hash') parts.push(...Object.entries(await f.redis.hgetall(key)).flat());
      else if (type === 'list') parts.push(...(await f.redis.lrange(key, 0, -1)));
      else if (type === 'set') parts.push(...(await f.redis.smembers(key)));
      else if (type === 'zset') parts.push(...(await f.redis.zrange(key, '0', '-1')));
      else if (type === 'stream') parts.push(JSON.stringify(await f.redis.xrange(key, '-', '+')));
    }
  } while (cursor !== '0');
  return parts.join('\n');
}

describe('suppress:', () => {
  it('a suppressed person id and company: 0 credits for them, none of them in the CRM', async () => {
    const f = await startFixture('suppress-ids', { salesIntel: { persons: 600 } });
    fx = f;
    const records = await f.oracleRecords('persons', FILTER);
    const person = records[7]!;
    const companyId = String(records.find((r) => r.companyId !== person.companyId)!.companyId);
    const ofCompany = records.filter((r) => r.companyId === companyId).map((r) => String(r.id));
    expect(ofCompany.length).toBeGreaterThan(0);
    const config = f.config(
      hubspotConfig(contactsSearch(`\n    suppress: {companyIds: ["${companyId}"]}`), CREDITS) +
        `suppress: {personIds: ["${String(person.id)}"]}\n`,
    );
    const summary = await syncSearch(f.deps(config), { search: 'people', runId: 's1' });
    const left = records.length - 1 - ofCompany.length;
    // the API charged exactly the persons not suppressed
    expect(f.si.stats('worker').creditsCharged).toBe(left);
    expect(summary).toMatchObject({
      status: 'completed',
      created: left,
      creditsSpent: left,
      personsRevealed: left,
      suppressed: 1 + ofCompany.length,
    });
    expect(formatSummary(summary)).toContain(`suppressed ${1 + ofCompany.length} (never written`);
    const inCrm = crmKeys(f);
    expect(inCrm.size).toBe(left);
    for (const id of [String(person.id), ...ofCompany]) expect(inCrm.has(id)).toBe(false);
  });

  it("a suppressed company domain: none of the company's people revealed (0 credits) nor written", async () => {
    // Persons that carry their company's domain (`company.domain`, the default suppress.paths.companyDomain).
    const f = await startFixture('suppress-domain', { salesIntel: { persons: 600, personCompany: true } });
    fx = f;
    const records = await f.oracleRecords('persons', FILTER);
    const domainOf = (r: Record<string, unknown>): string => (r.company as { domain: string }).domain;
    // the domain with the most people in the search
    const counts = new Map<string, number>();
    for (const r of records) counts.set(domainOf(r), (counts.get(domainOf(r)) ?? 0) + 1);
    const [domain] = [...counts].sort((a, b) => b[1] - a[1])[0]!;
    const ofDomain = records.filter((r) => domainOf(r) === domain).map((r) => String(r.id));
    expect(ofDomain.length).toBeGreaterThan(1);
    const config = f.config(
      hubspotConfig(contactsSearch(), CREDITS) + `suppress: {companyDomains: ["${domain.toUpperCase()}"]}\n`,
    );
    const summary = await syncSearch(f.deps(config), { search: 'people', runId: 'd1' });
    const left = records.length - ofDomain.length;
    expect(f.si.stats('worker').creditsCharged).toBe(left);
    expect(summary).toMatchObject({ status: 'completed', created: left, suppressed: ofDomain.length });
    const inCrm = crmKeys(f);
    expect(inCrm.size).toBe(left);
    for (const id of ofDomain) expect(inCrm.has(id)).toBe(false);
  });

  it('a suppressed email and email domain: revealed, never written, no contact value in Redis or logs', async () => {
    const f = await startFixture('suppress-emails', { salesIntel: { persons: 600 } });
    fx = f;
    // the oracle's own account pays for these; the worker's charges are counted apart
    const records = await f.oracleRecords('persons', FILTER, ['contacts']);
    type Contacts = { email: string; phone: string; mobile: string };
    const contacts = (r: Record<string, unknown>): Contacts => r.contacts as Contacts;
    const email = contacts(records[3]!).email;
    const other = records.find((r) => r.companyId !== records[3]!.companyId)!;
    const domain = contacts(other).email.split('@')[1]!;
    const hit = (r: Record<string, unknown>): boolean => {
      const e = contacts(r).email.toLowerCase();
      return e === email.toLowerCase() || e.endsWith(`@${domain.toLowerCase()}`);
    };
    const suppressed = records.filter(hit);
    expect(suppressed.length).toBeGreaterThan(1);
    const config = f.config(
      hubspotConfig(contactsSearch(`\n    suppress: {emailDomains: ["${domain.toUpperCase()}"]}`), CREDITS) +
        `suppress: {emails: ["${email}"]}\n`,
    );
    const lines: string[] = [];
    const logger = createLogger({ level: 'trace' }, { write: (line: string) => void lines.push(line) });
    const summary = await syncSearch({ ...f.deps(config), logger }, { search: 'people', runId: 'e1' });
    const left = records.length - suppressed.length;
    // known only after the reveal: every person was paid for, the suppressed ones are not written
    expect(summary).toMatchObject({ status: 'completed', created: left, suppressed: suppressed.length });
    const inCrm = crmKeys(f);
    expect(inCrm.size).toBe(left);
    for (const r of suppressed) expect(inCrm.has(String(r.id))).toBe(false);

    const stored = await redisText(f);
    const logged = lines.join('\n');
    expect(lines.length).toBeGreaterThan(0);
    for (const r of suppressed) {
      for (const value of Object.values(contacts(r))) {
        expect(stored.includes(value)).toBe(false);
        expect(logged.includes(value)).toBe(false);
      }
    }
  });

  it('keeps the keys found suppressed in Redis with each batch: a killed worker keeps them', async () => {
    const f = await startFixture('suppress-kept', { salesIntel: { persons: 600 } });
    fx = f;
    const records = await f.oracleRecords('persons', FILTER);
    const companyId = String(records[3]!.companyId);
    const ofCompany = records.filter((r) => String(r.companyId) === companyId).map((r) => String(r.id));
    const config = f.config(hubspotConfig(contactsSearch(`\n    suppress: {companyIds: ["${companyId}"]}`), CREDITS));
    const kept = new Set<string>();
    let reads = Promise.resolve();
    const summary = await syncSearch(f.deps(config), {
      search: 'people',
      runId: 's4',
      // Each batch's progress: what the batches before it left in the run's suppressed set.
      onProgress: () => {
        reads = reads
          .then(() => f.redis.smembers(runSuppressedKey('people', 's4', f.prefix)))
          .then((keys) => keys.forEach((k) => kept.add(k)));
      },
    });
    await reads;
    expect(summary).toMatchObject({ status: 'completed', suppressed: ofCompany.length });
    expect(kept.size).toBeGreaterThan(0);
    for (const key of kept) expect(ofCompany).toContain(key);
  });
});
