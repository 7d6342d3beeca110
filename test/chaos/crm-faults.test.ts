/**
 * Chaos: CRM faults during one run. HubSpot answers 429s and 5xx; Salesforce answers 5xx and expires the session
 * mid-run (collections and Bulk API 2.0); each CRM refuses one record in 50. Every good record lands once with its
 * values, every refused one is in the reject store with the CRM's reason, nothing else.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syncSearch } from '../../jobs/sync-search.js';
import { createRejectStore } from '../../src/crm/index.js';
import { startHubSpotEmulator, type HubSpotEmulator } from '../../src/emulators/hubspot/index.js';
import { startSalesforceEmulator, type SalesforceEmulator } from '../../src/emulators/salesforce/index.js';
import { diffCrmState, expectedRows, hubspotRows, NO_DIFF, salesforceRows } from '../helpers/crm-state.js';
import { waitFor } from '../helpers/worker-process.js';
import {
  COMPANY_FILTER,
  COMPANY_SEARCH,
  HUBSPOT_TOKEN,
  hubspotConfig,
  salesforceAccountSearch,
  salesforceConfigHead,
  startFixture,
  type Fixture,
} from '../jobs/sync-fixture.js';

const SF = { clientId: 'sf-chaos-client', clientSecret: 'sf-chaos-secret' };

let fx: Fixture;
let sf: SalesforceEmulator;
let hs: HubSpotEmulator;
let records: Record<string, unknown>[];
let refused: Set<string>;
beforeAll(async () => {
  // 2,000: a run's first write holds at most 200 records (the refusal guard's check,
  // jobs/sync-search/refusal-guard.ts); the 1,800 after it still fill a Bulk API 2.0 job
  fx = await startFixture('chaos-crm', { hubspot: false, salesIntel: { companies: 2_000, persons: 10 } });
  // HubSpot's rolling window shortened (a 429 blocks the portal for one window) so forced 429s cost a second each
  hs = await startHubSpotEmulator({
    port: 0,
    accessTokens: [HUBSPOT_TOKEN],
    limits: { perTenSeconds: 190, windowMs: 1_000 },
  });
  fx.env.HUBSPOT_BASE_URL = hs.url;
  // an ingest job waits 300 ms before processing, so a session expiry lands while the run polls it
  sf = await startSalesforceEmulator({ port: 0, clients: [SF], bulkProcessingDelayMs: 300 });
  fx.env.SF_LOGIN_URL = sf.url;
  fx.env.SF_CLIENT_SECRET = SF.clientSecret;
  records = await fx.oracleRecords('companies', COMPANY_FILTER);
  // one record in 50, by its position in the dataset
  refused = new Set(records.filter((_, i) => i % 50 === 7).map((r) => String(r.id)));
});
afterAll(async () => {
  await sf?.close();
  await hs?.close();
  await fx?.close();
});

const good = (): Record<string, unknown>[] => records.filter((r) => !refused.has(String(r.id)));

async function expectRejects(search: string): Promise<void> {
  const store = createRejectStore(fx.redis, fx.prefix);
  const listed = await store.list(search, { limit: 1000 });
  expect(listed.map((e) => e.key).sort()).toEqual([...refused].sort());
  for (const e of listed) {
    expect(e.code).toMatch(/\S/);
    expect(e.reason).toMatch(/\S/);
  }
  expect(await store.retryable(search)).toEqual([...refused].sort());
}

describe('chaos: CRM faults', () => {
  it(
    'HubSpot 429s and 5xx, one record in 50 refused: every good record lands, every refused one is a ' + 'reject',
    async () => {
      hs.faults.fail5xxRate = 0.05;
      hs.faults.reject = { values: new Set(refused), mode: 'record' };
      const config = fx.config(hubspotConfig(COMPANY_SEARCH, '  pageSize: 50\n  parallelism: 2'));
      let stop = false;
      // forced 429s twice and 5xx in a row once during the run, on top of the 5xx share
      const driver = (async () => {
        const landed = (at: number) =>
          waitFor(
            async () =>
              hubspotRows(hs, 'companies', 'prospect_sync_id', []).length >= at * records.length || stop
                ? true
                : undefined,
            60_000,
            `${at} landed`,
          );
        await landed(0.2);
        hs.faults.force429Next = 3;
        await landed(0.4);
        hs.faults.fail5xxNext = 2;
        await landed(0.6);
        hs.faults.force429Next = 3;
      })();
      let summary;
      try {
        summary = await syncSearch(fx.deps(config), { search: 'all-companies', runId: 'chaos-crm-hs' });
      } finally {
        stop = true;
        hs.faults.fail5xxRate = 0;
      }
      await driver;
      expect(hs.stats.byStatus['429'] ?? 0).toBeGreaterThanOrEqual(6);
      expect((hs.stats.byStatus['502'] ?? 0) + (hs.stats.byStatus['503'] ?? 0)).toBeGreaterThanOrEqual(2);
      expect(summary).toMatchObject({
        status: 'completed',
        created: records.length - refused.size,
        rejected: refused.size,
      });
      const fields = { name: 'name', domain: 'domain', numberofemployees: 'headcount' };
      expect(
        diffCrmState(
          hubspotRows(hs, 'companies', 'prospect_sync_id', Object.keys(fields)),
          expectedRows(good(), 'id', fields),
        ),
      ).toEqual(NO_DIFF);
      await expectRejects('all-companies');
    },
  );

  for (const bulk of [false, true]) {
    it(
      `Salesforce ${bulk ? 'Bulk API 2.0' : 'collections'}: 5xx and a session expiry mid-run, one record in 50 ` +
        `refused`,
      async () => {
        sf.faults.errorShare = 0.05;
        sf.faults.rejectKeys = [...refused];
        const search = bulk ? 'sf-bulk' : 'sf-collections';
        // bulk: one journey, so write batches (2,000 records) are large enough for an ingest job
        const head = salesforceConfigHead(SF.clientId, `\n    bulkThreshold: ${bulk ? 200 : 1_000_000}`).replace(
          '  pageSize: 100\n',
          `  pageSize: 100\n  parallelism: ${bulk ? 1 : 2}\n`,
        );
        const config = fx.config(`${head}searches:
${salesforceAccountSearch(search)}`);
        let stop = false;
        const expiries = sf.stats.statuses[401] ?? 0;
        const jobsBefore = sf.stats.requests['POST jobs/ingest'] ?? 0;
        const driver = (async () => {
          // mid-run: a third landed (collections), or the first ingest job opened (bulk: its upload and polls follow)
          const jobs = sf.stats.requests['POST jobs/ingest'] ?? 0;
          const landed = sf.state.all('Account').length;
          await waitFor(
            async () =>
              (bulk
                ? (sf.stats.requests['POST jobs/ingest'] ?? 0) > jobs
                : sf.state.all('Account').length >= landed + 0.3 * records.length) || stop
                ? true
                : undefined,
            60_000,
            'mid-run',
          );
          sf.expireAllSessions();
        })();
        let summary;
        try {
          // the bulk run follows the collections run into the same Accounts: send every record again
          summary = await syncSearch(fx.deps(config), { search, runId: `chaos-crm-${search}`, fullResync: bulk });
        } finally {
          stop = true;
          sf.faults.errorShare = 0;
        }
        await driver;
        expect(summary).toMatchObject({ status: 'completed', rejected: refused.size });
        expect((summary?.created ?? 0) + (summary?.updated ?? 0)).toBe(records.length - refused.size);
        expect(sf.stats.statuses[503] ?? 0).toBeGreaterThan(0);
        // bulk: at least one ingest job (a job the expiry or a 5xx broke is deleted and sent again as a new one)
        if (bulk) expect(sf.stats.requests['POST jobs/ingest'] ?? 0).toBeGreaterThan(jobsBefore);
        else expect(sf.stats.requests['POST jobs/ingest'] ?? 0).toBe(jobsBefore);
        expect(sf.stats.statuses[401] ?? 0).toBeGreaterThan(expiries);
        const fields = { Name: 'name', NumberOfEmployees: 'headcount' };
        expect(
          diffCrmState(
            salesforceRows(sf, 'Account', 'Prospect_Sync_Id__c', Object.keys(fields)),
            expectedRows(good(), 'id', fields),
          ),
        ).toEqual(NO_DIFF);
        await expectRejects(search);
      },
    );
  }
});
