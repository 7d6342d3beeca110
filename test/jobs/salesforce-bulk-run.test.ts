import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syncSearch } from '../../jobs/sync-search.js';
import { startSalesforceEmulator, type SalesforceEmulator } from '../../src/emulators/salesforce/index.js';
import { salesforceAccountSearch, salesforceConfigHead, startFixture, type Fixture } from './sync-fixture.js';

const SF = { clientId: 'sf-bulk-client', clientSecret: 'sf-bulk-secret' };
const FILTER = { company: { headcount: { gte: 1 } } };

let fx: Fixture;
let sf: SalesforceEmulator;
beforeAll(async () => {
  fx = await startFixture('sync-sf-bulk', { hubspot: false, salesIntel: { companies: 12_000, persons: 100 } });
  sf = await startSalesforceEmulator({ port: 0, clients: [SF], bulkProcessingDelayMs: 0 });
});
afterAll(async () => {
  await sf.close();
  await fx.close();
});

const yaml = (
  bulkThreshold: number,
): string => `${salesforceConfigHead(SF.clientId, `\n    bulkThreshold: ${bulkThreshold}`)}searches:
${salesforceAccountSearch('all-accounts')}`;

const bulkJobsCreated = (): number => sf.stats.requests['POST jobs/ingest'] ?? 0;
const collectionCalls = (): number => sf.stats.requests['PATCH composite/sobjects'] ?? 0;

describe('a Salesforce run above the bulk threshold (through the sync job)', () => {
  it(
    'writes through Bulk API 2.0 and lands every record exactly once; with the threshold above the volume it uses ' +
      'collections only',
    async () => {
      fx.env.SF_LOGIN_URL = sf.url;
      fx.env.SF_CLIENT_SECRET = SF.clientSecret;
      const expected = await fx.oracleIds('companies', FILTER);
      // Enough that each partition journey gathers write batches of 2,000 records (more than a bulk job costs in
      // calls).
      expect(expected.length).toBeGreaterThan(8_000);

      const bulk = await syncSearch(fx.deps(fx.config(yaml(2_000))), { search: 'all-accounts', runId: 'sf-bulk-1' });
      expect(bulk).toMatchObject({ status: 'completed', created: expected.length, rejected: 0 });
      expect(bulkJobsCreated()).toBeGreaterThan(0);
      const keys = sf.state
        .all('Account')
        .map((r) => String(r.Prospect_Sync_Id__c))
        .sort();
      expect(keys).toEqual(expected);

      // The same volume with a threshold above it goes through sObject Collections, and changes nothing.
      const jobsBefore = bulkJobsCreated();
      const again = await syncSearch(fx.deps(fx.config(yaml(1_000_000))), {
        search: 'all-accounts',
        runId: 'sf-bulk-2',
        fullResync: true,
      });
      expect(again).toMatchObject({ status: 'completed', created: 0, updated: expected.length, rejected: 0 });
      expect(bulkJobsCreated()).toBe(jobsBefore);
      expect(collectionCalls()).toBeGreaterThanOrEqual(Math.ceil(expected.length / 200));
      expect(sf.state.all('Account')).toHaveLength(expected.length);
    },
  );
});
