/**
 * `prospect-sync run / plan / runs / rejects` as a user runs them: a child process, a YAML file, the emulators.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createRejectStore } from '../../src/crm/index.js';
import { startSalesforceEmulator } from '../../src/emulators/salesforce/index.js';
import type { RunSummary } from '../../src/runs/run-summary.js';
import { freePort } from '../../src/shared/free-port.js';
import { WRITE_GRACE_MS } from '../../jobs/sync-search/run-session.js';
import { cli } from '../queue/cli-process.js';
import {
  COMPANY_FILTER,
  COMPANY_SEARCH,
  hubspotConfig,
  hubspotValues,
  salesforceAccountSearch,
  salesforceConfigHead,
  startFixture,
  type Fixture,
} from '../jobs/sync-fixture.js';

const CONTRACT_FIELDS = [
  'search',
  'status',
  'counted',
  'fetched',
  'unique',
  'created',
  'updated',
  'unchanged',
  'rejected',
  'tokensSpent',
  'creditsSpent',
  'requests',
  'throttled',
  'durationMs',
];

let fx: Fixture | undefined;
let dir: string | undefined;
afterEach(async () => {
  await fx?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
  fx = dir = undefined;
});

async function run(
  f: Fixture,
  yaml: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; out: string; err: string; last: () => unknown }> {
  dir ??= await mkdtemp(join(tmpdir(), 'ps-run-'));
  const file = join(dir, 'config.yaml');
  await writeFile(file, yaml);
  const c = cli([...args, '--config', file], { ...f.env, QUEUE_PREFIX: f.prefix, LOG_LEVEL: 'silent', ...env });
  const code = await c.exited;
  const out = c.out();
  return { code, out, err: c.err(), last: () => JSON.parse(out.trim().split('\n').at(-1) ?? 'null') };
}

describe('run command (child process)', () => {
  it(
    'run --json: exit 0 and the contract summary as the last stdout line; plan and runs agree; a held lock gives ' +
      'exit 1',
    async () => {
      fx = await startFixture('cli-run');
      const yaml = hubspotConfig(COMPANY_SEARCH);
      const expected = await fx.oracleIds('companies', COMPANY_FILTER);

      const plan = await run(fx, yaml, ['plan', 'all-companies', '--json']);
      expect(plan.code).toBe(0);
      expect(plan.last()).toMatchObject({
        counted: expected.length,
        tokensNeeded: expected.length,
        creditsNeeded: 0,
        pageSize: 50,
        crmLimits: [],
      });
      expect(fx.si.stats('worker').tokensCharged).toBe(0);

      const r = await run(fx, yaml, ['run', 'all-companies', '--json']);
      expect(r.code).toBe(0);
      const summary = r.last() as RunSummary;
      for (const field of CONTRACT_FIELDS) expect(summary).toHaveProperty(field);
      expect(summary).toMatchObject({
        search: 'all-companies',
        status: 'completed',
        counted: expected.length,
        created: expected.length,
      });
      expect(Object.keys(summary.requests).sort()).toEqual(['count', 'search']);
      expect(hubspotValues(fx.hubspot!, 'companies', 'prospect_sync_id')).toEqual(expected);

      // --full-resync sends every record again although none changed
      const full = await run(fx, yaml, ['run', 'all-companies', '--full-resync', '--json']);
      expect(full.code).toBe(0);
      expect(full.last()).toMatchObject({ status: 'completed', created: 0, updated: expected.length, unchanged: 0 });

      const runs = await run(fx, yaml, ['runs', 'all-companies', '--json']);
      expect(runs.code).toBe(0);
      expect((runs.last() as { runs: RunSummary[] }).runs.map((x) => x.runId)).toEqual([
        (full.last() as RunSummary).runId,
        summary.runId,
      ]);
      // after a run the estimate uses the search limit learned from the API's headers
      const replan = await run(fx, yaml, ['plan', 'all-companies']);
      expect(replan.code).toBe(0);
      expect(replan.out).toMatch(/at 500 searches per 60s \(learned from the API\)/);
      // The portal's limit as its answers said it (no requestsPer10s in the config), and when.
      const portal = fx.hubspot!.limits;
      expect(replan.out).toMatch(
        new RegExp(
          `crm limits\\s+hubspot requests: ${portal.perWindow} requests per ${portal.windowMs / 1000}s \\(learned ` +
            `from its answers, last 20\\d\\d-`,
        ),
      );
      expect(replan.out).toMatch(new RegExp(`daily ${portal.daily} requests, \\d+ left at 20\\d\\d-`));
      expect(replan.out).toMatch(new RegExp(`matches\\s+${expected.length}`));
      const rejects = await run(fx, yaml, ['rejects', 'all-companies', '--json']);
      expect(rejects.code).toBe(0);
      expect(rejects.last()).toMatchObject({ search: 'all-companies', rejects: [] });

      await fx.redis.set(`${fx.prefix}:run:all-companies:lock`, 'someone-else', 'PX', 20_000);
      const busy = await run(fx, yaml, ['run', 'all-companies', '--json']);
      expect(busy.code).toBe(1);
      expect(busy.last()).toMatchObject({ status: 'failed', error: { code: 'run_already_active' } });

      const unknown = await run(fx, yaml, ['run', 'nope']);
      expect(unknown.code).toBe(2);
    },
    180_000,
  ); // eight CLI processes: ~15 s idle, over 60 s on a loaded 2-core machine

  it('maxRecords reached: exit 0, completed with limitedBy max_records, that many distinct records', async () => {
    fx = await startFixture('cli-max-records');
    const r = await run(
      fx,
      hubspotConfig(COMPANY_SEARCH.replace('    destination: crm', '    maxRecords: 90\n    destination: crm')),
      ['run', 'all-companies', '--json'],
    );
    expect(r.code).toBe(0);
    expect(r.last()).toMatchObject({ status: 'completed', limitedBy: 'max_records', unique: 90, created: 90 });
    expect(r.last()).not.toHaveProperty('stopReason');
    expect(fx.hubspot!.state.count('companies')).toBe(90);
    const text = await run(
      fx,
      hubspotConfig(COMPANY_SEARCH.replace('    destination: crm', '    maxRecords: 90\n    destination: crm')),
      ['runs', 'all-companies'],
    );
    expect(text.out).toContain('limited by max_records');
  }, 60_000);

  it(
    'credit cap reached mid-run: exit 3, status partial, credits spent (as the API counted them) never above the ' +
      'cap',
    async () => {
      fx = await startFixture('cli-credits');
      const yaml = hubspotConfig(
        `
  - name: key-people
    segment: key-accounts
    entity: persons
    filter: {company: {headcount: {gte: 1}}}
    view: [contacts]
    allowPartial: true
    destination: crm
    object: contacts
    matchOn: {field: prospect_sync_id, from: id}
    fields: {firstname: firstName, lastname: lastName, email: contacts.email}
`,
        '  credits: {maxPerRun: 70, maxPerDay: 1000}',
      );
      const r = await run(fx, yaml, ['run', 'key-people', '--json']);
      expect(r.code).toBe(3);
      const summary = r.last() as RunSummary;
      expect(summary.status).toBe('partial');
      // the source client names the cap it hit; with parallel journeys in flight it may report the day cap (see report)
      expect(summary.stopReason).toMatch(/^credit_cap_/);
      const charged = fx.si.stats('worker').creditsCharged;
      expect(charged).toBeGreaterThan(0);
      expect(charged).toBeLessThanOrEqual(70);
      expect(summary.creditsSpent).toBe(charged);
      expect(fx.hubspot!.state.count('contacts')).toBe(summary.created);
      // contact details went to the CRM, never into the output
      expect(r.out + r.err).not.toMatch(/@c\d+\.example/);
    },
    60_000,
  );

  it('rejects: lists refusals and says what is sent again and what is not (keyless entries)', async () => {
    fx = await startFixture('cli-rejects', { hubspot: false });
    const yaml = hubspotConfig(COMPANY_SEARCH);
    const store = createRejectStore(fx.redis, fx.prefix);
    const at = new Date().toISOString();
    await store.add('all-companies', [
      { key: 'c_1', object: 'companies', code: 'INVALID_INTEGER', reason: 'numberofemployees is not a number', at },
      { key: 'c_2', object: 'companies', code: 'CONFLICT', reason: 'duplicate domain', at },
    ]);
    const keyed = await run(fx, yaml, ['rejects', 'all-companies']);
    expect(keyed.code).toBe(0);
    expect(keyed.out).toContain(
      '2 rejected record(s) not accepted since; each is sent again when a run of all-companies fetches it again.',
    );
    expect(keyed.out).not.toMatch(/next run|#<n>/);

    await store.add('all-companies', [
      { key: '#7', object: 'companies', code: 'missing_match_key', reason: 'no value at id', at, keyless: true },
    ]);
    const keyless = await run(fx, yaml, ['rejects', 'all-companies']);
    expect(keyless.out).toContain('2 rejected record(s) not accepted since');
    expect(keyless.out).toContain(
      'entries shown as #<n> had no match key (matchOn.from): fix the data or the mapping; they are not retried.',
    );
  }, 30_000);

  it('search tokens used up: exit 3, status delayed with the reset time printed', async () => {
    fx = await startFixture('cli-delayed', { account: { tokenAllotment: 120, tokenPeriodSeconds: 3600 } });
    const yaml = hubspotConfig(COMPANY_SEARCH);
    const r = await run(fx, yaml, ['run', 'all-companies']);
    expect(r.code).toBe(3);
    expect(r.out).toMatch(/all-companies: delayed \(tokens_exhausted\)/);
    const resumeAt = /resumes after the budget resets at (\S+)/.exec(r.out)?.[1];
    expect(Math.abs(Date.parse(resumeAt ?? '') - (Date.now() + 3600_000))).toBeLessThan(60_000);
    const runs = await run(fx, yaml, ['runs', 'all-companies', '--json']);
    const [last] = (runs.last() as { runs: RunSummary[] }).runs;
    expect(last).toMatchObject({ status: 'delayed', resumeAt });
    expect(last!.tokensSpent).toBe(fx.si.stats('worker').tokensCharged);
    expect(fx.hubspot!.state.count('companies')).toBe(last!.unique);
  }, 60_000);

  it('an API under a base path, snake_case records and a tiny package (10 searches / 2 s, 300 tokens)', async () => {
    fx = await startFixture('cli-tiny', {
      salesIntel: { basePath: '/api/v2', recordStyle: 'snake', windowSeconds: 2 },
      account: { limits: { search: 10, count: 10, dictionary: 10 }, tokenAllotment: 300, tokenPeriodSeconds: 3600 },
    });
    const filter = { company: { headcount: { gte: 1, lte: 8 } } };
    const expected = await fx.oracleIds('persons', filter);
    expect(expected.length).toBeGreaterThan(50);
    expect(expected.length).toBeLessThan(300);
    expect(fx.si.url).toMatch(/\/api\/v2$/);
    const yaml = hubspotConfig(
      `
  - name: snake-people
    segment: icp
    entity: persons
    filter: {company: {headcount: {gte: 1, lte: 8}}}
    destination: crm
    object: contacts
    matchOn: {field: prospect_sync_id, from: id}
    fields: {firstname: first_name, lastname: last_name, jobtitle: job_title}
`,
      '  pageSize: 20\n  fallbackLimits: {search: 10, count: 10, dictionary: 10, windowSeconds: 2}',
    ).replace(/^ {2}fallbackLimits: \{search: 500.*\n/m, '');
    const r = await run(fx, yaml, ['run', 'snake-people', '--json']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const summary = r.last() as RunSummary;
    expect(summary).toMatchObject({ status: 'completed', created: expected.length, throttled: 0 });
    expect(fx.si.stats('worker').served429.search).toBe(0);
    expect(hubspotValues(fx.hubspot!, 'contacts', 'prospect_sync_id')).toEqual(expected);
    const one = fx.hubspot!.state.find('contacts', 'prospect_sync_id', expected[0]!);
    expect(one?.properties.firstname).toBeTruthy();
    expect(one?.properties.jobtitle).toBeTruthy();
  }, 60_000);

  it(
    'a Salesforce login against a closed port is an outage, not bad credentials: exit 1, ' + 'crm_unavailable',
    async () => {
      fx = await startFixture('cli-sf-closed', { hubspot: false });
      const port = await freePort();
      const sfYaml = `${salesforceConfigHead('sf-client')}searches:\n${salesforceAccountSearch('sf-accounts')}`;
      const closed = await run(fx, sfYaml, ['run', 'sf-accounts', '--json'], {
        SF_LOGIN_URL: `http://127.0.0.1:${port}`,
        SF_CLIENT_SECRET: 'sf-secret',
      });
      expect(closed.code).toBe(1);
      expect(closed.last()).toMatchObject({ status: 'failed', error: { code: 'crm_unavailable' } });
      expect(JSON.stringify(closed.last())).not.toMatch(/authentication|fetch failed/i);
    },
    60_000,
  );

  it('one SIGTERM during a hung HubSpot call ends `run` within the write grace: exit 1, aborted', async () => {
    fx = await startFixture('cli-hung-sigterm');
    const hs = fx.hubspot!;
    hs.faults.hang = { route: 'upsert', times: 10_000 };
    dir ??= await mkdtemp(join(tmpdir(), 'ps-run-'));
    const file = join(dir, 'hung.yaml');
    await writeFile(
      file,
      hubspotConfig(COMPANY_SEARCH).replace(
        'baseUrl: ${HUBSPOT_BASE_URL}',
        'baseUrl: ${HUBSPOT_BASE_URL}\n    requestTimeoutMs: 120000',
      ),
    );
    const c = cli(['run', 'all-companies', '--json', '--config', file], {
      ...fx.env,
      QUEUE_PREFIX: fx.prefix,
      LOG_LEVEL: 'silent',
    });
    try {
      const until = Date.now() + 30_000;
      while (hs.faults.hung === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
      expect(hs.faults.hung).toBeGreaterThan(0);
      const signalled = Date.now();
      c.child.kill('SIGTERM');
      const code = await Promise.race([
        c.exited,
        new Promise<'running'>((r) => setTimeout(() => r('running'), WRITE_GRACE_MS + 8_000)),
      ]);
      expect(code).toBe(1);
      expect(Date.now() - signalled).toBeLessThan(WRITE_GRACE_MS + 8_000);
      expect(JSON.parse(c.out().trim().split('\n').at(-1) ?? 'null')).toMatchObject({
        status: 'failed',
        stopReason: 'aborted',
      });
    } finally {
      if (c.child.exitCode === null) c.child.kill('SIGKILL');
    }
  }, 60_000);

  it(
    'a credential or schema refused by ANY remote is a config error: exit 2 (Sales-Intelligence, HubSpot, ' +
      'Salesforce)',
    async () => {
      fx = await startFixture('cli-refused');
      const sf = await startSalesforceEmulator({
        port: 0,
        clients: [{ clientId: 'sf-client', clientSecret: 'sf-secret' }],
      });
      try {
        const yaml = hubspotConfig(COMPANY_SEARCH);
        const badSecret = { SI_CLIENT_SECRET: 'not-the-secret' };
        const si = await run(fx, yaml, ['run', 'all-companies', '--json'], badSecret);
        expect(si.code).toBe(2);
        expect(si.last()).toMatchObject({ status: 'failed', error: { code: 'source_unauthorized' } });
        expect((si.last() as RunSummary).error?.message).toMatch(
          /: check SI_CLIENT_SECRET \(source\.auth\.clientSecret\)$/,
        );
        const plan = await run(fx, yaml, ['plan', 'all-companies', '--json'], badSecret);
        expect(plan.code).toBe(2);
        expect(plan.last()).toMatchObject({ error: { code: 'source_unauthorized' } });
        // a filter value to look up in the API's dictionaries
        const withIndustry = hubspotConfig(
          COMPANY_SEARCH.replace('headcount: {gte: 1, lte: 1000000}', 'industry: {include: [software]}'),
        );
        const validate = await run(fx, withIndustry, ['validate', '--online'], badSecret);
        expect(validate.code).toBe(2);
        expect(validate.err).toContain('refused the client credentials (invalid_client): check SI_CLIENT_SECRET');
        expect(si.out + plan.out + validate.err).not.toContain('not-the-secret');

        const hubspot = await run(fx, yaml, ['run', 'all-companies', '--json'], { HUBSPOT_TOKEN: 'not-the-token' });
        expect(hubspot.code).toBe(2);
        expect(hubspot.last()).toMatchObject({
          status: 'failed',
          error: {
            code: 'crm_auth_failed',
            message: 'HubSpot refused the access token (401): check HUBSPOT_TOKEN (destinations.crm.accessToken)',
          },
        });
        expect(hubspot.out).not.toContain('not-the-token');
        const text = await run(fx, yaml, ['run', 'all-companies'], { HUBSPOT_TOKEN: 'not-the-token' });
        expect(text.out).toContain(
          'crm_auth_failed: HubSpot refused the access token (401): check HUBSPOT_TOKEN (destinations.crm.accessToken)',
        );
        expect(text.out + text.err).not.toContain('not-the-token');

        const schema = await run(
          fx,
          hubspotConfig(COMPANY_SEARCH.replace('domain: domain', 'no_such_property: domain')),
          ['run', 'all-companies', '--json'],
        );
        expect(schema.code).toBe(2);
        expect(schema.last()).toMatchObject({ status: 'failed', error: { code: 'crm_schema_mismatch' } });

        const sfYaml = `${salesforceConfigHead('sf-client')}searches:\n${salesforceAccountSearch('sf-accounts')}`;
        const salesforce = await run(fx, sfYaml, ['run', 'sf-accounts', '--json'], {
          SF_LOGIN_URL: sf.url,
          SF_CLIENT_SECRET: 'not-the-sf-secret',
        });
        expect(salesforce.code).toBe(2);
        expect(salesforce.last()).toMatchObject({ status: 'failed', error: { code: 'crm_auth_failed' } });
        expect((salesforce.last() as RunSummary).error?.message).toMatch(
          /: check SF_CLIENT_SECRET \(destinations\.\w+\.clientSecret\)$/,
        );
      } finally {
        await sf.close();
      }
    },
    90_000,
  );
});
