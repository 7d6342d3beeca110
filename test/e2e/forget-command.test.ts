/**
 * `prospect-sync forget <person-id | email> [--crm …] [--apply] [--reason] [--json]` as a user runs it (a child
 * process), on a person revealed, listed and synced by two contacts searches (emulators, real HubSpot client, real
 * Redis). The dry run changes nothing; --apply leaves neither their id nor their email in any key or value under the
 * prefix, archives their CRM record, and the next two runs of both searches neither reveal nor write them.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { syncSearch } from '../../jobs/sync-search.js';
import { fixtureCli } from './fixture-cli.js';
import { contactsSearch, hubspotConfig, startFixture, type Fixture } from '../jobs/sync-fixture.js';
import { redisEntries, redisText } from '../helpers/redis-text.js';

let fx: Fixture | undefined;
const cli = fixtureCli('forget');
afterEach(async () => {
  await fx?.close();
  await cli.cleanup();
  fx = undefined;
});

const FILTER = { company: { headcount: { gte: 1 } } };
const SEARCHES =
  contactsSearch('', { fields: 'firstname: firstName, email: contacts.email, phone: contacts.phone' }) +
  '    list: {name: People}\n' +
  contactsSearch('', { name: 'people-b', fields: 'lastname: lastName, email: contacts.email' });

describe('forget command (child process)', () => {
  it(
    'lists without changing anything, then erases every trace; later runs neither reveal nor write the ' + 'person',
    async () => {
      const f = await startFixture('cli-forget', { salesIntel: { persons: 120 } });
      fx = f;
      const hubspot = f.hubspot!;
      const yaml = hubspotConfig(SEARCHES, '  credits: {maxPerRun: 100000, maxPerDay: 1000000}');
      const config = f.config(yaml);
      const records = await f.oracleRecords('persons', FILTER, ['contacts']);
      const person = records[5]!;
      const id = String(person.id);
      const email = (person.contacts as { email: string }).email.toLowerCase();
      const run = (search: string, runId: string) => syncSearch(f.deps(config), { search, runId });
      expect(await run('people', 'a1')).toMatchObject({ status: 'completed', created: records.length });
      // people-b's write of them is refused once: a reject and a warning of theirs are stored
      hubspot.faults.reject.values.add(id);
      expect(await run('people-b', 'b1')).toMatchObject({ status: 'completed', rejected: 1 });
      hubspot.faults.reject.values.delete(id);
      const contacts = hubspot.state.tables.get('contacts')!;
      const crmRecord = contacts.findBy('prospect_sync_id', id)!;
      expect(crmRecord.properties.email?.toLowerCase()).toBe(email);
      expect(hubspot.state.lists.byNameOf('People', '0-1')?.members.has(crmRecord.id)).toBe(true);

      // The dry run: every trace listed, nothing changed (Redis byte for byte, the CRM record).
      // (the rate governor's learned limits move with any CRM call: not the person's data)
      const state = async (): Promise<Map<string, string>> =>
        new Map([...(await redisEntries(f.redis, f.prefix))].filter(([key]) => !key.includes(':gov:')));
      const before = await state();
      expect([...before.values()].join('\n')).toContain(id);
      const dry = await cli.run(f, yaml, ['forget', id, '--json']);
      expect(dry.code).toBe(0);
      const listed = dry.last() as { traces: { store: string; count: number }[]; crm: unknown[] };
      // a page of people-b's first run is revealed whole (its plan has no tally yet): they may be paid for twice
      const theirReveals = listed.traces.find((t) => t.store === 'reveal log')?.count ?? 0;
      expect(theirReveals).toBeGreaterThanOrEqual(1);
      expect(listed).toMatchObject({ applied: false, personIdKnown: true, emailKnown: true });
      expect(listed.traces.map((t) => t.store)).toEqual(
        expect.arrayContaining([
          'reveal store',
          'reveal log',
          'membership, list marks and change fingerprints',
          'rejects',
          'run histories',
        ]),
      );
      expect(listed.crm).toEqual([
        { search: 'people', destination: 'crm', object: 'contacts', found: true },
        { search: 'people-b', destination: 'crm', object: 'contacts', found: true },
      ]);
      expect(dry.out).not.toContain(email);
      expect(await state()).toEqual(before);
      const bad = await cli.run(f, yaml, ['forget', id, '--crm', 'delete', '--apply']);
      expect(bad.code).toBe(2);
      expect(bad.err).toContain('gdpr-delete, archive, nothing');
      expect(contacts.objects.has(crmRecord.id)).toBe(true);

      // By email: the CRM record names the person id.
      const applied = await cli.run(f, yaml, [
        'forget',
        email.toUpperCase(),
        '--apply',
        '--crm',
        'archive',
        '--reason',
        `asked by ${email} about ${id}`,
      ]);
      expect(applied.code).toBe(0);
      expect(applied.out).toContain('erased from our stores');
      expect(applied.out).not.toContain(email);
      expect(contacts.objects.has(crmRecord.id)).toBe(false);
      expect(contacts.archived.has(crmRecord.id)).toBe(true);
      expect(hubspot.state.lists.byNameOf('People', '0-1')?.members.has(crmRecord.id)).toBe(false);
      const scan = async (): Promise<string> => (await redisText(f.redis, f.prefix)).toLowerCase();
      let text = await scan();
      expect(text).not.toContain(id.toLowerCase());
      expect(text).not.toContain(email);

      // Two more runs of each search: no credit for them, no CRM record of them.
      const charged = f.si.stats('worker').creditsCharged;
      for (const runId of ['2', '3']) {
        const a = await run('people', `a${runId}`);
        const b = await run('people-b', `b${runId}`);
        expect(a).toMatchObject({ status: 'completed', creditsSpent: 0, suppressed: 1 });
        expect(b).toMatchObject({ status: 'completed', creditsSpent: 0, suppressed: 1 });
        expect(contacts.findBy('prospect_sync_id', id)).toBeUndefined();
      }
      expect(f.si.stats('worker').creditsCharged).toBe(charged);
      text = await scan();
      expect(text).not.toContain(id.toLowerCase());
      expect(text).not.toContain(email);

      // The reveal log: every other reveal, none of theirs, one erasure line.
      const csv = await cli.run(f, yaml, ['reveals', '--csv']);
      const rows = csv.out.trim().split('\n').slice(1);
      expect(csv.out).not.toContain(id);
      expect(rows.filter((r) => r.includes(',erasure,'))).toHaveLength(1);
      expect(rows.filter((r) => r.includes(',reveal,'))).toHaveLength(charged - theirReveals);
    },
  );
});
