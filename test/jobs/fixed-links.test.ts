/**
 * A contact whose company link failed (its company was not in the CRM yet) is linked again by a later run once the
 * company exists, and then leaves the rejects list. Salesforce: real jsforce against the emulator, real Redis (the
 * HubSpot side is in test/e2e/dashboard-pages.test.ts, through the `rejects` command and the rejects page).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syncSearch } from '../../jobs/sync-search.js';
import { createRejectStore } from '../../src/crm/index.js';
import { startSalesforceEmulator, type SalesforceEmulator } from '../../src/emulators/salesforce/index.js';
import { salesforceAccountSearch, salesforceConfigHead, startFixture, type Fixture } from './sync-fixture.js';

const SF = { clientId: 'sf-links-client', clientSecret: 'sf-links-secret' };

let fx: Fixture;
let sf: SalesforceEmulator;
beforeAll(async () => {
  fx = await startFixture('fixed-links', { hubspot: false });
  sf = await startSalesforceEmulator({ port: 0, clients: [SF] });
  fx.env.SF_LOGIN_URL = sf.url;
  fx.env.SF_CLIENT_SECRET = SF.clientSecret;
});
afterAll(async () => {
  await sf.close();
  await fx.close();
});

describe('a fixed link leaves the rejects', () => {
  it(
    'Salesforce: contacts written before their Accounts are linked by the next run, and their link failures are ' +
      'gone',
    async () => {
      const config = fx.config(`${salesforceConfigHead(SF.clientId)}searches:
${salesforceAccountSearch('accounts')}
  - name: leaders
    segment: icp
    entity: persons
    filter:
      company: {headcount: {gte: 1, lte: 40}}
      person: {seniority: {include: [director, vp]}}
    view: [demographics]
    destination: sf
    object: Contact
    matchOn: {from: id}
    fields: {FirstName: firstName, LastName: lastName}
    associate: {company: {from: companyId}}
`);
      const store = createRejectStore(fx.redis, fx.prefix);
      // no Account yet: every contact lands without its link, listed as a failed link
      const first = await syncSearch(fx.deps(config), { search: 'leaders', runId: 'links-1' });
      expect(first.status).toBe('completed');
      expect(first.linkErrors ?? 0).toBeGreaterThan(0);
      expect(first.linkErrors).toBe(first.created);
      const listed = await store.list('leaders', { limit: 1000 });
      expect(listed.filter((r) => r.kind === 'link')).toHaveLength(first.linkErrors ?? 0);

      await syncSearch(fx.deps(config), { search: 'accounts', runId: 'links-accounts' });
      const second = await syncSearch(fx.deps(config), { search: 'leaders', runId: 'links-2' });
      expect(second).toMatchObject({ status: 'completed', updated: first.created });
      expect(second.linkErrors ?? 0).toBe(0);
      // every contact points at an Account now, and no failed link is listed any more
      expect(sf.state.all('Contact').every((c) => typeof c.AccountId === 'string' && c.AccountId !== '')).toBe(true);
      expect((await store.list('leaders', { limit: 1000 })).filter((r) => r.kind === 'link')).toEqual([]);
    },
  );
});
