/**
 * The Salesforce sink's `erase` (`forget --crm`), real jsforce against the emulator: Salesforce has no GDPR delete
 * call, so both modes delete (to the Recycle Bin).
 */
import { afterEach, describe, expect, test } from 'vitest';
import type { ObjectTarget } from '../../../src/crm/crm-sink.js';
import { sfFixture } from './sf-fixture.js';

let fixture: Awaited<ReturnType<typeof sfFixture>> | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

const TARGET: ObjectTarget = {
  object: 'Contact',
  matchField: 'Prospect_Sync_Id__c',
  fields: ['LastName', 'Email'],
};

describe('erase', () => {
  test('both modes delete by match key; unknown keys are missing', async () => {
    const { sink, emulator } = (fixture = await sfFixture());
    const records = ['p1', 'p2', 'p3'].map((key) => ({
      key,
      properties: { LastName: `L ${key}`, Email: `${key}@x.io` },
    }));
    await sink.upsert(TARGET, records);
    expect(await sink.erase(TARGET, ['p1', 'nobody'], 'gdpr-delete')).toEqual({
      archived: ['p1'],
      missing: ['nobody'],
      refused: [],
    });
    expect(await sink.erase(TARGET, ['p2'], 'archive')).toEqual({ archived: ['p2'], missing: [], refused: [] });
    expect(emulator.state.all('Contact').map((r) => r.Prospect_Sync_Id__c)).toEqual(['p3']);
    expect(emulator.state.recycleBin.size).toBe(2);
  });
});
