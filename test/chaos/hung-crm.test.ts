/**
 * Chaos: a CRM that accepts a request and never answers. Each attempt ends at its deadline
 * (`destinations.*.requestTimeoutMs`) and is retried by the call policy; when every attempt hangs, the run fails
 * retryable and the next attempt resumes from its checkpoint; a run stopped during a hung call ends promptly.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { syncSearch } from '../../jobs/sync-search.js';
import { WRITE_GRACE_MS } from '../../jobs/sync-search/run-session.js';
import { startSalesforceEmulator, type SalesforceEmulator } from '../../src/emulators/salesforce/index.js';
import type { HubSpotEmulator } from '../../src/emulators/hubspot/index.js';
import { hubspotRows, salesforceRows } from '../helpers/crm-state.js';
import { waitFor } from '../helpers/worker-process.js';
import {
  COMPANY_FILTER,
  COMPANY_SEARCH,
  hubspotConfig,
  salesforceAccountSearch,
  salesforceConfigHead,
  startFixture,
  type Fixture,
} from '../jobs/sync-fixture.js';

const SF = { clientId: 'sf-hung-client', clientSecret: 'sf-hung-secret' };

let fx: Fixture;
let hs: HubSpotEmulator;
let total: number;
beforeEach(async () => {
  fx = await startFixture('hung-crm');
  hs = fx.hubspot!;
  total = (await fx.oracleIds('companies', COMPANY_FILTER)).length;
});
afterEach(async () => {
  await fx?.close();
});

const hubspotYaml = (timeoutMs: number): string =>
  hubspotConfig(COMPANY_SEARCH, '  parallelism: 2').replace(
    'baseUrl: ${HUBSPOT_BASE_URL}',
    `baseUrl: \${HUBSPOT_BASE_URL}\n    requestTimeoutMs: ${timeoutMs}`,
  );
const landed = (): number => hubspotRows(hs, 'companies', 'prospect_sync_id', []).length;

describe('chaos: a CRM that never answers', () => {
  it('HubSpot: a hung upsert is retried past its deadline and the run completes', async () => {
    hs.faults.hang = { route: 'upsert', times: 2 };
    const started = Date.now();
    const summary = await syncSearch(fx.deps(fx.config(hubspotYaml(400))), {
      search: 'all-companies',
      runId: 'hung-once',
    });
    expect(hs.faults.hung).toBe(2);
    expect(summary).toMatchObject({ status: 'completed', created: total });
    expect(landed()).toBe(total);
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it(
    'HubSpot: every upsert hangs -> the run fails retryable (crm_unavailable, timeout); the next attempt resumes ' +
      'and completes',
    async () => {
      const config = fx.config(hubspotYaml(300));
      const driver = waitFor(async () => (landed() >= 100 ? true : undefined), 30_000, '100 landed').then(() => {
        hs.faults.hang = { route: 'upsert', times: 10_000 };
      });
      const failed = await syncSearch(fx.deps(config), { search: 'all-companies', runId: 'hung-always' });
      await driver;
      expect(failed).toMatchObject({ status: 'failed', error: { code: 'crm_unavailable' } });
      expect(failed.error?.message).toMatch(/HubSpot still failing after 4 attempts \(timeout\)/);
      const before = landed();
      expect(before).toBeGreaterThanOrEqual(100);
      expect(before).toBeLessThan(total);

      hs.faults.hang = { times: 0 };
      const resumed = await syncSearch(fx.deps(config), { search: 'all-companies', runId: 'hung-always' });
      expect(resumed.status).toBe('completed');
      expect(landed()).toBe(total);
      // Resumed from the checkpoint: the records written before the failure were not fetched again.
      expect(fx.si.stats('worker').tokensCharged).toBeLessThan(2 * total - before / 2);
    },
  );

  it(
    'HubSpot: a run stopped during a hung call ends within the write grace, not the call deadline, and ' + 'resumes',
    async () => {
      const config = fx.config(hubspotYaml(120_000));
      hs.faults.hang = { route: 'upsert', times: 10_000 };
      const abort = new AbortController();
      const running = syncSearch(fx.deps(config), {
        search: 'all-companies',
        runId: 'hung-stop',
        signal: abort.signal,
      });
      await waitFor(async () => (hs.faults.hung >= 1 ? true : undefined), 30_000, 'a hung upsert');
      const stoppedAt = Date.now();
      abort.abort();
      const stopped = await running;
      expect(Date.now() - stoppedAt).toBeLessThan(WRITE_GRACE_MS + 5_000);
      expect(stopped).toMatchObject({ status: 'failed', stopReason: 'aborted' });

      hs.faults.hang = { times: 0 };
      const resumed = await syncSearch(fx.deps(config), { search: 'all-companies', runId: 'hung-stop' });
      expect(resumed.status).toBe('completed');
      expect(landed()).toBe(total);
    },
  );

  it(
    'Salesforce: a hung login and a hung collections upsert are retried past their deadline and the run ' + 'completes',
    async () => {
      const sf: SalesforceEmulator = await startSalesforceEmulator({ port: 0, clients: [SF] });
      try {
        fx.env.SF_LOGIN_URL = sf.url;
        fx.env.SF_CLIENT_SECRET = SF.clientSecret;
        const config = fx.config(
          `${salesforceConfigHead(SF.clientId, '\n    requestTimeoutMs: 400')}searches:\n` +
            `${salesforceAccountSearch('accounts')}`,
        );
        sf.faults.hang = { route: 'POST oauth2/token', times: 1 };
        const started = Date.now();
        const loggingIn = syncSearch(fx.deps(config), { search: 'accounts', runId: 'sf-hung' });
        await waitFor(async () => ((sf.faults.hung ?? 0) >= 1 ? true : undefined), 10_000, 'a hung login');
        sf.faults.hang = { route: 'PATCH composite/sobjects', times: 1 };
        const summary = await loggingIn;
        expect(sf.faults.hung).toBe(2);
        expect(summary).toMatchObject({ status: 'completed', created: total });
        expect(salesforceRows(sf, 'Account', 'Prospect_Sync_Id__c', [])).toHaveLength(total);
        expect(Date.now() - started).toBeLessThan(30_000);
      } finally {
        await sf.close();
      }
    },
  );

  it(
    'Salesforce: every upsert hangs -> the run fails retryable (crm_unavailable, TIMEOUT); the next attempt ' +
      'resumes and completes',
    async () => {
      const sf: SalesforceEmulator = await startSalesforceEmulator({ port: 0, clients: [SF] });
      try {
        fx.env.SF_LOGIN_URL = sf.url;
        fx.env.SF_CLIENT_SECRET = SF.clientSecret;
        const config = fx.config(
          `${salesforceConfigHead(SF.clientId, '\n    requestTimeoutMs: 300')}searches:\n` +
            `${salesforceAccountSearch('accounts')}`,
        );
        const rows = (): number => salesforceRows(sf, 'Account', 'Prospect_Sync_Id__c', []).length;
        sf.faults.hang = { route: 'PATCH composite/sobjects', times: 10_000 };
        const failed = await syncSearch(fx.deps(config), { search: 'accounts', runId: 'sf-hung-always' });
        expect(failed).toMatchObject({ status: 'failed', error: { code: 'crm_unavailable' } });
        expect(failed.error?.message).toMatch(/Salesforce still failing after 5 attempts \(TIMEOUT\)/);
        expect(rows()).toBeLessThan(total);

        sf.faults.hang = { times: 0 };
        const resumed = await syncSearch(fx.deps(config), { search: 'accounts', runId: 'sf-hung-always' });
        expect(resumed.status).toBe('completed');
        expect(rows()).toBe(total);
      } finally {
        await sf.close();
      }
    },
    60_000,
  );
});
