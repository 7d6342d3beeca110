/**
 * Change state is bound to the CRM instance it describes: a destination pointed at another HubSpot portal or
 * Salesforce org (a new or restored instance) gets a full sync. Real @hubspot/api-client and jsforce against the
 * emulators, real Redis.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { syncSearch } from '../../jobs/sync-search.js';
import { createHubSpotSink, createRejectStore } from '../../src/crm/index.js';
import { SalesforceSink } from '../../src/crm/salesforce/salesforce-sink.js';
import { startHubSpotEmulator, type HubSpotEmulator } from '../../src/emulators/hubspot/index.js';
import { startSalesforceEmulator } from '../../src/emulators/salesforce/index.js';
import { testRedis } from '../helpers/redis.js';
import {
  COMPANY_FILTER,
  COMPANY_SEARCH,
  HUBSPOT_TOKEN,
  hubspotConfig,
  salesforceAccountSearch,
  salesforceConfigHead,
  startFixture,
  type Fixture,
} from './sync-fixture.js';

const SF = { clientId: 'sf-test-client', clientSecret: 'sf-test-secret' };
let fx: Fixture | undefined;
const extra: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.allSettled(extra.splice(0).map((e) => e.close()));
  await fx?.close();
  fx = undefined;
});

describe('change state bound to the CRM instance', () => {
  it(
    'sinks name their instance: HubSpot portal id (account-info API), Salesforce org id (token identity ' + 'URL)',
    async () => {
      const hs = await startHubSpotEmulator({ port: 0, accessTokens: [HUBSPOT_TOKEN], portalId: 4242 });
      const sf = await startSalesforceEmulator({ port: 0, clients: [SF], orgId: '00D0000000000ORG2' });
      const { redis, prefix, cleanup } = await testRedis('crm-instance');
      extra.push(hs, sf, { close: cleanup });
      const hubspot = createHubSpotSink({ accessToken: HUBSPOT_TOKEN, baseUrl: hs.url, redis, keyPrefix: prefix });
      const salesforce = new SalesforceSink({ loginUrl: sf.url, clientId: SF.clientId, clientSecret: SF.clientSecret });
      try {
        expect(await hubspot.identity()).toBe('hubspot:4242');
        expect(await salesforce.identity()).toBe('salesforce:00D0000000000ORG2');
      } finally {
        await Promise.all([hubspot.close(), salesforce.close()]);
      }
    },
  );

  it('HubSpot: a second portal behind the same destination gets a full sync; the first keeps its state', async () => {
    const f = await startFixture('instance-hubspot');
    fx = f;
    const expected = await f.oracleIds('companies', COMPANY_FILTER);
    const config = f.config(hubspotConfig(COMPANY_SEARCH));
    expect(await syncSearch(f.deps(config), { search: 'all-companies', runId: 'h1' })).toMatchObject({
      created: expected.length,
    });
    expect(await syncSearch(f.deps(config), { search: 'all-companies', runId: 'h2' })).toMatchObject({
      created: 0,
      updated: 0,
      unchanged: expected.length,
    });

    // sandbox -> production: same destination name, another portal
    const production: HubSpotEmulator = await startHubSpotEmulator({
      port: 0,
      accessTokens: [HUBSPOT_TOKEN],
      portalId: 9_000_001,
    });
    extra.push(production);
    f.env.HUBSPOT_BASE_URL = production.url;
    const moved = f.config(hubspotConfig(COMPANY_SEARCH));
    const full = await syncSearch(f.deps(moved), { search: 'all-companies', runId: 'h3' });
    expect(full).toMatchObject({ status: 'completed', created: expected.length, unchanged: 0 });
    expect(production.state.count('companies')).toBe(expected.length);
    // back to the first portal: its hashes are still its own
    expect(await syncSearch(f.deps(config), { search: 'all-companies', runId: 'h4' })).toMatchObject({
      created: 0,
      updated: 0,
      unchanged: expected.length,
    });
  });

  it('HubSpot: rejects are kept per portal', async () => {
    const f = await startFixture('instance-rejects');
    fx = f;
    const config = f.config(hubspotConfig(COMPANY_SEARCH));
    f.hubspot!.faults.reject = {
      values: new Set([(await f.oracleIds('companies', COMPANY_FILTER))[0]!]),
      mode: 'record',
    };
    await syncSearch(f.deps(config), { search: 'all-companies', runId: 'r1' });
    expect(await createRejectStore(f.redis, f.prefix).pendingCount('all-companies')).toBe(1);
    expect(
      await createRejectStore(f.redis, f.prefix, `hubspot:${f.hubspot!.portalId}`).pendingCount('all-companies'),
    ).toBe(1);
    expect(await createRejectStore(f.redis, f.prefix, 'hubspot:1').pendingCount('all-companies')).toBe(0);
  });

  it('Salesforce: a restored org (new org id) behind the same destination gets a full sync', async () => {
    const f = await startFixture('instance-salesforce', { hubspot: false });
    fx = f;
    const first = await startSalesforceEmulator({ port: 0, clients: [SF] });
    extra.push(first);
    f.env.SF_CLIENT_SECRET = SF.clientSecret;
    f.env.SF_LOGIN_URL = first.url;
    const yaml = (): string => `${salesforceConfigHead(SF.clientId)}searches:\n${salesforceAccountSearch('accounts')}`;
    const expected = await f.oracleIds('companies', { company: { headcount: { gte: 1 } } });
    expect(await syncSearch(f.deps(f.config(yaml())), { search: 'accounts', runId: 's1' })).toMatchObject({
      created: expected.length,
    });
    expect(await syncSearch(f.deps(f.config(yaml())), { search: 'accounts', runId: 's2' })).toMatchObject({
      created: 0,
      unchanged: expected.length,
    });

    const restored = await startSalesforceEmulator({ port: 0, clients: [SF], orgId: '00D00000000RESTOR' });
    extra.push(restored);
    f.env.SF_LOGIN_URL = restored.url;
    const full = await syncSearch(f.deps(f.config(yaml())), { search: 'accounts', runId: 's3' });
    expect(full).toMatchObject({ status: 'completed', created: expected.length, unchanged: 0 });
    expect(restored.state.all('Account').length).toBe(expected.length);
  });
});
