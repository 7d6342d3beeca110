/**
 * `prospect-sync reveals [--since] [--search] [--csv] [--json]` as a user runs it: a child process reading the reveal
 * log a contacts search's runs wrote (emulators, real HubSpot client, real Redis). The emulator counts the credits
 * it charged: the CSV has exactly one line per credit.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { syncSearch } from '../../jobs/sync-search.js';
import { fixtureCli } from './fixture-cli.js';
import { contactsSearch, hubspotConfig, startFixture, type Fixture } from '../jobs/sync-fixture.js';

let fx: Fixture | undefined;
const cli = fixtureCli('reveals');
afterEach(async () => {
  await fx?.close();
  await cli.cleanup();
  fx = undefined;
});

const SEARCH = contactsSearch('', { fields: 'firstname: firstName, phone: contacts.phone' });

describe('reveals command (child process)', () => {
  it(
    'lists one CSV line per credit the API charged: a run the CRM refused, a capped run and the run finishing ' + 'it',
    async () => {
      const f = await startFixture('cli-reveals', { salesIntel: { persons: 250 } });
      fx = f;
      const yaml = hubspotConfig(SEARCH, '  credits: {maxPerRun: 150, maxPerDay: 1000000}');
      const config = f.config(yaml);
      const ids = await f.oracleIds('persons', { company: { headcount: { gte: 1 } } });
      // The CRM refuses every write: the run pays for pages that never land; the log has them all the same.
      f.hubspot!.faults.missingScopes.add('crm.objects.contacts.write');
      expect((await syncSearch(f.deps(config), { search: 'people', runId: 'r0' })).status).not.toBe('completed');
      const unlanded = f.si.stats('worker').creditsCharged;
      expect(unlanded).toBeGreaterThan(0);
      f.hubspot!.faults.missingScopes.clear();
      const first = await syncSearch(f.deps(config), { search: 'people', runId: 'r1' });
      expect(first.status).toBe('partial');
      const second = await syncSearch(f.deps(config), { search: 'people', runId: 'r2' });
      expect(second.status).toBe('completed');
      const charged = f.si.stats('worker').creditsCharged;
      expect(charged).toBeGreaterThanOrEqual(ids.length + unlanded);

      const res = await cli.run(f, yaml, ['reveals', '--csv']);
      expect(res.code).toBe(0);
      const [header, ...lines] = res.out.trim().split('\n');
      expect(header).toBe('time,event,person_id,search,segment,run_id');
      expect(lines.length).toBe(charged);
      const rows = lines.map((l) => l.split(','));
      expect(new Set(rows.map((r) => r[2])).size).toBe(ids.length);
      expect([...new Set(rows.map((r) => r[2]))].sort()).toEqual(ids);
      expect(new Set(rows.map((r) => `${r[1]} ${r[3]} ${r[4]}`))).toEqual(new Set(['reveal people key-accounts']));
      expect(rows.filter((r) => r[5] === 'r0').length).toBe(unlanded);
      expect(rows.filter((r) => r[5] === 'r1').length).toBe(first.creditsSpent);
      expect(rows.filter((r) => r[5] === 'r2').length).toBe(second.creditsSpent);

      const json = await cli.run(f, yaml, ['reveals', '--json', '--search', 'people']);
      expect(json.code).toBe(0);
      expect(json.last()).toMatchObject({ logDays: 400, reveals: charged });
      const none = await cli.run(f, yaml, ['reveals', '--csv', '--search', 'other']);
      expect(none.out.trim().split('\n')).toHaveLength(1);
      const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
      const later = await cli.run(f, yaml, ['reveals', '--json', '--since', tomorrow]);
      expect(later.last()).toMatchObject({ reveals: 0 });
      const bad = await cli.run(f, yaml, ['reveals', '--since', 'yesterday']);
      expect(bad.code).toBe(2);
      expect(bad.err).toContain('invalid date');
    },
  );
});
