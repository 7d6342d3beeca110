/**
 * `forget <email>` for a person no CRM record holds (docs/data-protection.md, By email): the person id stays unknown,
 * only the email is suppressed; the next run pays for the person (known only after the reveal) but never writes them,
 * and no value of theirs lands in Redis. Emulators, real HubSpot client, real Redis.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { syncSearch } from '../../jobs/sync-search.js';
import { forgetPerson } from '../../jobs/sync-search/index.js';
import { redisText } from '../helpers/redis-text.js';
import { contactsSearch, hubspotConfig, startFixture, type Fixture } from './sync-fixture.js';

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

describe('forget by an email the CRM does not hold', () => {
  it('suppresses the email only: the person is revealed by the next run but never written', async () => {
    const f = await startFixture('forget-unknown', { salesIntel: { persons: 80 } });
    fx = f;
    const yaml = hubspotConfig(
      contactsSearch('', { fields: 'firstname: firstName, email: contacts.email' }),
      '  credits: {maxPerRun: 100000, maxPerDay: 1000000}',
    );
    const config = f.config(yaml);
    const records = await f.oracleRecords('persons', { company: { headcount: { gte: 1 } } }, ['contacts']);
    const person = records[9]!;
    const email = (person.contacts as { email: string }).email;
    const report = await forgetPerson(f.deps(config), { who: email, crm: 'archive', apply: true, reason: 'asked' });
    expect(report).toMatchObject({
      by: 'email',
      personIdKnown: false,
      emailKnown: true,
      applied: true,
      traces: [],
      crm: [{ search: 'people', found: false }],
    });
    expect(report.ref).toMatch(/^e:[0-9a-f]{32}$/);

    const summary = await syncSearch(f.deps(config), { search: 'people', runId: 'r1' });
    expect(summary).toMatchObject({ status: 'completed', created: records.length - 1, suppressed: 1 });
    expect(f.si.stats('worker').creditsCharged).toBe(records.length);
    expect(f.hubspot!.state.find('contacts', 'prospect_sync_id', String(person.id))).toBeUndefined();
    expect((await redisText(f.redis, f.prefix)).toLowerCase()).not.toContain(email.toLowerCase());
  });
});
