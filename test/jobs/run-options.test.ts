/**
 * Run options and CRM stops through the job: `--full-resync` (request and job data), a dry run on a fresh HubSpot
 * portal, CRM credentials/scopes refused (no retry), CRM limits (retried later, checkpoint kept).
 */
import type { Job } from 'bullmq';
import { UnrecoverableError } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DelayedError } from 'bullmq';
import { createSyncProcessor, syncSearch } from '../../jobs/sync-search.js';
import { queueProcessor } from '../../jobs/sync-search/queue-processor.js';
import { CRM_LIMIT_RETRY_MS, RunFailedError } from '../../jobs/sync-search/run-errors.js';
import type { SyncJobData, SyncJobResult } from '../../src/queue/job-data.js';
import type { RunSummary } from '../../src/runs/run-summary.js';
import { startSalesforceEmulator } from '../../src/emulators/salesforce/index.js';
import { completedRun, companySearch, hubspotConfig, SOURCE_YAML, startFixture, type Fixture } from './sync-fixture.js';

let fx: Fixture;
beforeAll(async () => {
  fx = await startFixture('run-options');
});
afterAll(async () => fx.close());

const FILTER = { company: { headcount: { gte: 1, lte: 8 } } };
const companies = (name: string, matchField: string): string => `
  - name: ${name}
    segment: icp
    entity: companies
    filter: {company: {headcount: {gte: 1, lte: 8}}}
    destination: crm
    object: companies
    matchOn: {field: ${matchField}, from: id}
    fields: {name: name}
`;

/** What the worker hands the processor, reduced to what the processor touches. */
function job(
  data: Partial<SyncJobData> & { search: string; runId: string },
  attemptsMade = 0,
  delays: number[] = [],
): Job<SyncJobData, SyncJobResult> {
  return {
    data: { trigger: 'manual', requestedAt: new Date().toISOString(), ...data },
    attemptsMade,
    opts: { attempts: 5 },
    updateProgress: async () => undefined,
    moveToDelayed: async (at: number) => void delays.push(at),
  } as unknown as Job<SyncJobData, SyncJobResult>;
}

const checkpointOf = (search: string): Promise<number> => fx.redis.exists(`${fx.prefix}:run:${search}:checkpoint`);

describe('full resync', () => {
  it('sends every record again although nothing changed: from the run request and from the job data', async () => {
    const config = fx.config(hubspotConfig(companies('resync', 'resync_id')));
    const expected = await fx.oracleIds('companies', FILTER);
    expect(expected.length).toBeGreaterThan(5);
    const deps = fx.deps(config);
    expect(await syncSearch(deps, { search: 'resync', runId: 'rs-1' })).toMatchObject({
      status: 'completed',
      created: expected.length,
    });
    expect(await syncSearch(deps, { search: 'resync', runId: 'rs-2' })).toMatchObject({
      updated: 0,
      unchanged: expected.length,
    });

    const upserted = (): number => fx.hubspot!.stats.byRoute.upsert ?? 0;
    let before = upserted();
    const full = await syncSearch(deps, { search: 'resync', runId: 'rs-3', fullResync: true });
    expect(full).toMatchObject({ status: 'completed', created: 0, updated: expected.length, unchanged: 0 });
    expect(upserted()).toBeGreaterThan(before);

    const processor = createSyncProcessor(deps);
    before = upserted();
    const queued = (await processor(
      job({ search: 'resync', runId: 'rs-4', fullResync: true }),
      'token',
      new AbortController().signal,
    )) as RunSummary;
    expect(queued).toMatchObject({ status: 'completed', updated: expected.length, unchanged: 0 });
    expect(upserted()).toBeGreaterThan(before);
    // without the flag the queued run skips them again
    const plain = (await processor(
      job({ search: 'resync', runId: 'rs-5' }),
      'token',
      new AbortController().signal,
    )) as RunSummary;
    expect(plain).toMatchObject({ updated: 0, unchanged: expected.length });
  });
});

describe('CRM refusals', () => {
  it('dry run on a fresh HubSpot portal (match property not created yet): every record would be created', async () => {
    const config = fx.config(hubspotConfig(companies('fresh-dry', 'fresh_dry_id')));
    const expected = await fx.oracleIds('companies', FILTER);
    const summary = await syncSearch(fx.deps(config), { search: 'fresh-dry', runId: 'fd-1', dryRun: true });
    expect(summary).toMatchObject({ status: 'completed', dryRun: true, created: expected.length, updated: 0 });
    expect(fx.hubspot!.state.tables.get('companies')?.properties.has('fresh_dry_id')).toBe(false);
  });

  it('missing HubSpot scopes (crm_auth_failed) fail the job at once, without retries', async () => {
    const config = fx.config(hubspotConfig(companies('no-scope', 'no_scope_id')));
    fx.hubspot!.faults.missingScopes = new Set(['crm.schemas.companies.read']);
    try {
      const err = await createSyncProcessor(fx.deps(config))(
        job({ search: 'no-scope', runId: 'ns-1' }),
        'token',
        new AbortController().signal,
      ).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UnrecoverableError);
      expect((err as Error).message).toMatch(/crm\.schemas\.companies\.read/);
    } finally {
      fx.hubspot!.faults.missingScopes = new Set();
    }
  });

  const salesforce = (name: string, maxApiShare: number): string => `${SOURCE_YAML}
destinations:
  sf:
    type: salesforce
    loginUrl: \${SF_LOGIN_URL}
    clientId: sf-client
    clientSecret: \${SF_CLIENT_SECRET}
    maxApiShare: ${maxApiShare}
searches:
  - name: ${name}
    segment: icp
    entity: companies
    filter: {company: {headcount: {gte: 1, lte: 8}}}
    destination: sf
    object: Account
    matchOn: {field: Prospect_Sync_Id__c, from: id}
    fields: {Name: name}
`;

  // crm_daily_limit: the org's allowance is used up; crm_api_share_exceeded: our maxApiShare of it would be passed.
  it.each([
    { code: 'crm_daily_limit', usage: 1000, share: 1 },
    { code: 'crm_api_share_exceeded', usage: 900, share: 0.5 },
  ])(
    '$code: the run stops cleanly, keeps its checkpoint, and is retried later with a growing wait',
    async ({ code, usage, share }) => {
      const sf = await startSalesforceEmulator({
        port: 0,
        clients: [{ clientId: 'sf-client', clientSecret: 'sf-secret' }],
        apiDailyLimit: 1000,
        apiUsageStart: usage,
      });
      try {
        fx.env.SF_LOGIN_URL = sf.url;
        fx.env.SF_CLIENT_SECRET = 'sf-secret';
        const search = `limit-${code}`;
        const deps = fx.deps(fx.config(salesforce(search, share)));
        const processor = createSyncProcessor(deps);
        const first = await processor(job({ search, runId: `${code}-1` }), 'token', new AbortController().signal).catch(
          (e: unknown) => e,
        );
        expect(first).toBeInstanceOf(RunFailedError);
        expect(first).not.toBeInstanceOf(UnrecoverableError);
        expect(first).toMatchObject({ code, retryAfterMs: CRM_LIMIT_RETRY_MS });
        expect(await checkpointOf(search)).toBe(1);
        // a later attempt of the same run waits longer
        const again = await processor(
          job({ search, runId: `${code}-1` }, 2),
          'token',
          new AbortController().signal,
        ).catch((e: unknown) => e);
        expect(again).toMatchObject({ code, retryAfterMs: CRM_LIMIT_RETRY_MS * 4 });
      } finally {
        await sf.close();
      }
    },
  );
});

describe('what nothing resumes, and what Redis refused', () => {
  const matchedSets = (): Promise<string[]> => fx.redis.keys(`${fx.prefix}:mirror:*:run:*`);

  it(
    'a run stopped on its last attempt leaves neither checkpoint nor matched set; an earlier attempt keeps ' + 'both',
    async () => {
      const config = fx.config(hubspotConfig(companySearch('last-try'), '  pageSize: 10\n  parallelism: 1'));
      const stopped = async (runId: string, lastAttempt: boolean): Promise<RunSummary> => {
        const stop = new AbortController();
        return syncSearch(fx.deps(config), {
          search: 'last-try',
          runId,
          lastAttempt,
          signal: stop.signal,
          onProgress: () => stop.abort(),
        });
      };
      expect(await stopped('lt-1', false)).toMatchObject({ status: 'failed', stopReason: 'aborted' });
      expect(await checkpointOf('last-try')).toBe(1);
      // The matched set, and beside it the run's record ids (its dedup set: `:ids` and its buckets).
      const kept = await matchedSets();
      expect(kept.filter((k) => !/:ids(:\d+)?$/.test(k))).toHaveLength(1);
      expect(kept.some((k) => k.endsWith(':ids'))).toBe(true);
      const last = await stopped('lt-1', true);
      expect(last).toMatchObject({ status: 'failed', stopReason: 'aborted' });
      expect(last.created).toBeGreaterThan(0);
      expect(await checkpointOf('last-try')).toBe(0);
      expect(await matchedSets()).toEqual([]);
    },
  );

  it(
    'a run Redis refused (out of memory) is delayed without burning an attempt; the last attempt is ' + 'told',
    async () => {
      const config = fx.config(hubspotConfig(companies('oom', 'oom_id')));
      const requests: { lastAttempt?: boolean }[] = [];
      const refused = async (
        _deps: unknown,
        request: { runId: string; lastAttempt?: boolean },
      ): Promise<RunSummary> => {
        requests.push(request);
        const error = { code: 'redis_unavailable', message: "OOM command not allowed when used memory > 'maxmemory'." };
        return { ...completedRun('oom', request.runId, 0), status: 'failed', error };
      };
      const delays: number[] = [];
      const processor = queueProcessor(refused, fx.deps(config));
      const err = await processor(
        job({ search: 'oom', runId: 'oom-1' }, 4, delays),
        't',
        new AbortController().signal,
      ).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(DelayedError);
      expect(delays).toHaveLength(1);
      expect(delays[0]! - Date.now()).toBeLessThan(5_000);
      expect(requests.map((r) => r.lastAttempt)).toEqual([true]);
    },
  );
});
