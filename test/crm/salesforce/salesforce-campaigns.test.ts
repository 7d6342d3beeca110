/**
 * The Salesforce ListPort (a Campaign and its CampaignMembers) through the real jsforce against the strict emulator:
 * find or create by Name, members in collections batches, duplicates as members already, deleted records as missing,
 * every page of members, match keys to Ids.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type {
  SalesforceEmulator,
  SalesforceEmulatorOptions,
} from '../../../src/emulators/salesforce/salesforce-emulator.js';
import type { SalesforceSink } from '../../../src/crm/salesforce/salesforce-sink.js';
import { sfFixture } from './sf-fixture.js';

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

async function setup(
  options: Partial<SalesforceEmulatorOptions> = {},
): Promise<{ emulator: SalesforceEmulator; sink: SalesforceSink }> {
  const fx = await sfFixture(options);
  close = fx.close;
  return fx;
}

/** `n` records of `object` straight in the org, keyed `<prefix>-<i>`; their Ids. */
function seed(
  emulator: SalesforceEmulator,
  object: 'Contact' | 'Lead' | 'Account',
  n: number,
  prefix = object.toLowerCase(),
): string[] {
  const o = emulator.state.object(object);
  const ext = o.fields.find((f) => f.name === 'Prospect_Sync_Id__c')!;
  return Array.from({ length: n }, (_, i) => {
    const r = emulator.state.upsert(
      o,
      ext,
      `${prefix}-${i}`,
      object === 'Account'
        ? { Name: `Co ${i}` }
        : { LastName: `L${i}`, ...(object === 'Lead' ? { Company: 'X' } : {}) },
      [],
    );
    if (!r.ok) throw new Error('seed failed');
    return r.id;
  });
}

const membersIn = (emulator: SalesforceEmulator, campaignId: string, link = 'ContactId'): string[] =>
  emulator.state
    .all('CampaignMember')
    .filter((m) => m.CampaignId === campaignId && m[link] != null)
    .map((m) => String(m[link]))
    .sort();

describe('Salesforce campaigns: ensureList', () => {
  it('creates the campaign once, then finds it by name whatever its case', async () => {
    const { emulator, sink } = await setup();
    const id = await sink.lists.ensureList('Contact', 'VP Leaders');
    expect(emulator.state.get('Campaign', id)).toMatchObject({ Name: 'VP Leaders' });
    expect(await sink.lists.ensureList('Contact', 'vp leaders')).toBe(id);
    expect(await sink.lists.ensureList('Lead', 'VP LEADERS')).toBe(id);
    expect(emulator.state.all('Campaign')).toHaveLength(1);
    expect(emulator.stats.requests['POST sobjects']).toBe(1);
  });

  it('refuses a name two campaigns hold, naming it and both ids; refuses objects campaigns cannot hold', async () => {
    const { emulator, sink } = await setup();
    const a = emulator.state.create(emulator.state.object('Campaign'), { Name: 'Twice' }, []);
    const b = emulator.state.create(emulator.state.object('Campaign'), { Name: 'twice' }, []);
    if (!a.ok || !b.ok) throw new Error('set-up failed');
    const refused = sink.lists.ensureList('Contact', 'Twice');
    await expect(refused).rejects.toMatchObject({ code: 'crm_list_unusable', details: { reason: 'name_ambiguous' } });
    await expect(refused).rejects.toThrow(new RegExp(`2 campaigns named "Twice" \\(${a.id}, ${b.id}\\)`));
    await expect(sink.lists.ensureList('Opportunity', 'Deals')).rejects.toMatchObject({
      code: 'crm_list_unusable',
      details: { reason: 'object' },
    });
  });
});

describe('Salesforce campaigns: members', () => {
  it(
    'adds contacts and leads in collections of at most 200, counts a member already there as no error, reads ' +
      'every page',
    async () => {
      const { emulator, sink } = await setup({ queryBatchSize: 200 });
      const contacts = seed(emulator, 'Contact', 430);
      const leads = seed(emulator, 'Lead', 5);
      const id = await sink.lists.ensureList('Contact', 'Mixed');
      const first = await sink.lists.changeMembers(id, contacts.slice(0, 10), []);
      expect(first.added.sort()).toEqual(contacts.slice(0, 10).sort());

      const sizes = emulator.stats.collectionSizes.length;
      const change = await sink.lists.changeMembers(id, [...contacts, ...leads], []);
      expect(change.added.sort()).toEqual([...contacts.slice(10), ...leads].sort());
      expect(change.missing).toEqual([]);
      expect(emulator.stats.collectionSizes.slice(sizes)).toEqual([200, 200, 35]);
      expect(membersIn(emulator, id)).toEqual(contacts.slice().sort());
      expect(membersIn(emulator, id, 'LeadId')).toEqual(leads.slice().sort());
      // 435 members: three query pages of 200.
      const queries = emulator.stats.requests['GET query/{locator}'] ?? 0;
      expect((await sink.lists.members(id)).sort()).toEqual([...contacts, ...leads].sort());
      expect((emulator.stats.requests['GET query/{locator}'] ?? 0) - queries).toBe(2);
    },
  );

  it(
    'removes the members of removed records by their CampaignMember ids; a deleted contact has left and is ' +
      'missing',
    async () => {
      const { emulator, sink } = await setup();
      const contacts = seed(emulator, 'Contact', 250);
      const id = await sink.lists.ensureList('Contact', 'Leavers');
      await sink.lists.changeMembers(id, contacts, []);
      expect(emulator.state.delete(contacts[0]!, []).ok).toBe(true);
      expect(membersIn(emulator, id)).toHaveLength(249);

      const sizes = emulator.stats.collectionSizes.length;
      const change = await sink.lists.changeMembers(id, [contacts[0]!], contacts.slice(1, 221));
      expect(change.missing).toEqual([contacts[0]]);
      expect(change.removed.sort()).toEqual(contacts.slice(1, 221).sort());
      expect(emulator.stats.collectionSizes.slice(sizes)).toEqual([1, 200, 20]);
      expect(membersIn(emulator, id)).toEqual(contacts.slice(221).sort());
      // Removing records not in the campaign writes nothing.
      const deletes = emulator.stats.requests['DELETE composite/sobjects'];
      expect(await sink.lists.changeMembers(id, [], contacts.slice(1, 5))).toEqual({
        added: [],
        removed: [],
        missing: [],
      });
      expect(emulator.stats.requests['DELETE composite/sobjects']).toBe(deletes);
    },
  );

  it('holds Accounts where the org takes them as members; reads match keys as Ids', async () => {
    const { emulator, sink } = await setup({ accountsAsCampaignMembers: true });
    const accounts = seed(emulator, 'Account', 3);
    const id = await sink.lists.ensureList('Account', 'Accounts');
    expect((await sink.lists.changeMembers(id, accounts, [])).added.sort()).toEqual(accounts.slice().sort());
    expect((await sink.lists.members(id)).sort()).toEqual(accounts.slice().sort());
    const ids = await sink.lists.recordIds('Account', 'prospect_sync_id__c', ['account-0', 'ACCOUNT-2', 'nobody']);
    expect(Object.fromEntries(ids)).toEqual({ 'account-0': accounts[0], 'ACCOUNT-2': accounts[2] });
  });
});
