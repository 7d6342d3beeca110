/**
 * Honest outcomes when the CRM refuses what a run sends (jobs/sync-search/refusal-guard.ts): a mapping refused for
 * every record fails the run early, before the rest of the search's tokens are spent, naming the CRM's code and
 * field; a refused share above `rejects.failAbove` fails the run; below it the run completes with grouped warnings.
 * Real HubSpot and Salesforce clients against the emulators, real Redis.
 */
import { UnrecoverableError, type Job } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSyncProcessor, syncSearch } from '../../jobs/sync-search.js';
import type { SyncJobData, SyncJobResult } from '../../src/queue/job-data.js';
import { CONFIG_ERROR_CODES } from '../../jobs/sync-search/run-errors.js';
import { CheckpointStore } from '../../src/runs/checkpoint-store.js';
import { exitCodeOf } from '../../src/runs/run-summary.js';
import { startSalesforceEmulator, type SalesforceEmulator } from '../../src/emulators/salesforce/index.js';
import { hubspotConfig, salesforceConfigHead, startFixture, type Fixture } from './sync-fixture.js';

const SF = { clientId: 'sf-refusal-client', clientSecret: 'sf-refusal-secret' };

let fx: Fixture;
let sf: SalesforceEmulator;
beforeAll(async () => {
  fx = await startFixture('refusals', { salesIntel: { companies: 3_000, persons: 3_000 } });
  sf = await startSalesforceEmulator({ port: 0, clients: [SF] });
  fx.env.SF_LOGIN_URL = sf.url;
  fx.env.SF_CLIENT_SECRET = SF.clientSecret;
});
afterAll(async () => {
  await sf.close();
  await fx.close();
});

const companies = (name: string, fields: string, extra = ''): string => `
  - name: ${name}
    segment: icp
    entity: companies
    filter: {company: {headcount: {gte: 1}}}
    destination: crm
    object: companies
    matchOn: {field: ${name.replaceAll('-', '_')}_id, from: id}
    fields: ${fields}
${extra}`;

const LEADS = `  - name: leads
    segment: icp
    entity: persons
    filter: {company: {headcount: {gte: 1}}}
    view: [demographics]
    destination: sf
    object: Lead
    matchOn: {from: id}
`;

describe('a run the CRM refuses', () => {
  it(
    'HubSpot refusing a mapped property for every record: failed early (crm_refused_all), naming code and ' + 'field',
    async () => {
      // numberofemployees is a number property; a company name is not a number
      const config = fx.config(
        hubspotConfig(companies('bad-mapping', '{name: name, numberofemployees: name}'), '  parallelism: 2'),
      );
      const summary = await syncSearch(fx.deps(config), {
        search: 'bad-mapping',
        runId: 'refused-hs',
        fullResync: true,
      });
      expect(summary.status).toBe('failed');
      expect(summary.error?.code).toBe('crm_refused_all');
      expect(summary.error?.message).toContain('INVALID_INTEGER [numberofemployees]');
      expect(summary.error?.message).toContain('numberofemployees: [value] was not a valid number. (INVALID_INTEGER)');
      // exit 1 (a failure, not a config error), and stopped early: far below the search's count in tokens
      expect(exitCodeOf(summary)).toBe(1);
      expect(CONFIG_ERROR_CODES.has('crm_refused_all')).toBe(false);
      expect(summary.counted).toBe(3_000);
      expect(summary.tokensSpent).toBeLessThan(1_000);
      expect(summary.rejected).toBeGreaterThanOrEqual(200);
      expect(fx.hubspot!.state.count('companies')).toBe(0);
      // the warnings are one group, readable
      expect(summary.warnings?.groups).toEqual([
        {
          code: 'INVALID_INTEGER',
          field: 'numberofemployees',
          count: summary.rejected,
          example:
            'Property values were not valid: numberofemployees: [value] was not a valid number. (INVALID_INTEGER)',
        },
      ]);
      // not retried: nothing is left to resume
      expect(await new CheckpointStore(fx.redis, 'bad-mapping', { prefix: fx.prefix }).load('refused-hs')).toBeNull();
    },
  );

  it('a queued run the CRM refuses fails at once: no retry spends the same tokens again', async () => {
    const config = fx.config(
      hubspotConfig(companies('queued-bad-mapping', '{name: name, numberofemployees: name}'), '  parallelism: 2'),
    );
    const job = {
      data: {
        search: 'queued-bad-mapping',
        runId: 'refused-queued',
        trigger: 'manual',
        requestedAt: new Date().toISOString(),
      },
      attemptsMade: 0,
      updateProgress: async () => undefined,
      moveToDelayed: async () => undefined,
    } as unknown as Job<SyncJobData, SyncJobResult>;
    const processor = createSyncProcessor(fx.deps(config));
    const error = await processor(job, 'token', new AbortController().signal).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnrecoverableError);
    expect((error as Error).message).toContain('INVALID_INTEGER [numberofemployees]');
  });

  it('a Lead search without Company fails before its first token, naming the field (preflight)', async () => {
    const config = fx.config(`${salesforceConfigHead(SF.clientId)}searches:
${LEADS}    fields: {FirstName: firstName, LastName: lastName}
`);
    const summary = await syncSearch(fx.deps(config), { search: 'leads', runId: 'refused-sf-preflight' });
    expect(summary).toMatchObject({ status: 'failed', error: { code: 'crm_schema_mismatch' }, tokensSpent: 0 });
    expect(summary.error?.message).toContain('Company');
    expect(sf.state.all('Lead')).toHaveLength(0);
  });

  it('Salesforce refusing every Lead (a validation rule on Status): failed early, naming code and field', async () => {
    sf.faults.reject = (object) =>
      object === 'Lead'
        ? {
            statusCode: 'FIELD_CUSTOM_VALIDATION_EXCEPTION',
            message: 'Leads are closed this quarter',
            fields: ['Status'],
          }
        : undefined;
    try {
      const config = fx.config(`${salesforceConfigHead(SF.clientId)}searches:
${LEADS}    fields: {FirstName: firstName, LastName: lastName, Company: {value: Unknown}}
`);
      const summary = await syncSearch(fx.deps(config), { search: 'leads', runId: 'refused-sf' });
      expect(summary).toMatchObject({ status: 'failed', error: { code: 'crm_refused_all' } });
      expect(summary.error?.message).toContain('FIELD_CUSTOM_VALIDATION_EXCEPTION [Status]');
      expect(exitCodeOf(summary)).toBe(1);
      expect(summary.stopReason).toBeUndefined();
      expect(summary.tokensSpent).toBeLessThan(summary.counted / 2);
      expect(sf.state.all('Lead')).toHaveLength(0);
    } finally {
      delete sf.faults.reject;
    }
  });

  it(
    'a refused share above rejects.failAbove fails the run; below it, completed with the rejects ' + 'grouped',
    async () => {
      const ids = await fx.oracleIds('companies', { company: { headcount: { gte: 1 } } });
      // every third company refused, spread over the walk (so no early stop): a third of the records sent
      const refused = ids.filter((_, i) => i % 3 === 0);
      fx.hubspot!.faults.reject = { values: new Set(refused), mode: 'record' };
      try {
        const strict = fx.config(hubspotConfig(companies('strict', '{name: name}', '    rejects: {failAbove: 0.25}')));
        const failed = await syncSearch(fx.deps(strict), { search: 'strict', runId: 'share-1' });
        expect(failed).toMatchObject({
          status: 'failed',
          rejected: refused.length,
          created: ids.length - refused.length,
          error: { code: 'crm_refused_share' },
        });
        expect(failed.error?.message).toContain(`the CRM refused ${refused.length} of the ${ids.length} records sent`);
        expect(failed.error?.message).toContain('INVALID_OPTION [record]');
        expect(exitCodeOf(failed)).toBe(1);

        // the default (0.5): a third refused completes, with one group for the one reason
        const lenient = fx.config(hubspotConfig(companies('lenient', '{name: name}')));
        const completed = await syncSearch(fx.deps(lenient), { search: 'lenient', runId: 'share-2' });
        expect(completed).toMatchObject({
          status: 'completed',
          rejected: refused.length,
          warnings: { count: refused.length },
        });
        expect(completed.warnings?.groups).toEqual([
          {
            code: 'INVALID_OPTION',
            field: 'record',
            count: refused.length,
            example: expect.stringMatching(
              /^Property values were not valid: record: Value c_\w+ was rejected \(INVALID_OPTION\)$/,
            ),
          },
        ]);
        expect(exitCodeOf(completed)).toBe(0);
      } finally {
        fx.hubspot!.faults.reject = { values: new Set(), mode: 'record' };
      }
    },
  );
});
