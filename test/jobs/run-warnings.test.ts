/**
 * A completed run with CRM rejects or failed company links says so: `warnings {count, first}` in its summary (redacted
 * reasons) and its "run finished" line at warn. And the queue processor reading a reloadable config once per job.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSyncProcessor, syncSearch } from '../../jobs/sync-search.js';
import type { AppConfig } from '../../src/config/index.js';
import { formatSummary } from '../../src/runs/format-summary.js';
import { MAX_WARNING_REASONS } from '../../src/runs/run-warnings.js';
import type { RunSummary } from '../../src/runs/run-summary.js';
import { createLogger } from '../../src/shared/logger.js';
import { fakeJob, hubspotConfig, startFixture, type Fixture } from './sync-fixture.js';

let fx: Fixture;
beforeAll(async () => {
  fx = await startFixture('run-warnings');
});
afterAll(async () => fx.close());

const FILTER = { company: { headcount: { gte: 1, lte: 30 } } };
/** Persons with their email, linked to companies no search has synced: every link fails. */
const PEOPLE = `
  - name: people
    segment: key-accounts
    entity: persons
    filter: {company: {headcount: {gte: 1, lte: 30}}}
    view: [contacts]
    destination: crm
    object: contacts
    matchOn: {field: prospect_sync_id, from: id}
    fields: {firstname: firstName, email: contacts.email}
    associate: {company: {from: companyId}}
`;
const CREDITS = '  credits: {maxPerRun: 100000, maxPerDay: 100000}';

function capture(): { logger: ReturnType<typeof createLogger>; lines: Record<string, unknown>[]; raw: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  const logger = createLogger({ level: 'info' }, stream);
  return {
    logger,
    get lines() {
      return chunks
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    },
    raw: () => chunks.join(''),
  };
}

const job = (search: string, runId: string) => fakeJob(search, runId);

describe('warnings are visible', () => {
  it('rejects and failed links: completed, with a count and the first redacted reasons, logged at warn', async () => {
    const records = await fx.oracleRecords('persons', FILTER);
    expect(records.length).toBeGreaterThan(MAX_WARNING_REASONS + 3);
    // refused by id; HubSpot's reason echoes the record's values (its email among them: "Value … was rejected")
    const refused = records.slice(0, 2).map((r) => String(r.id));
    fx.hubspot!.faults.reject = { values: new Set(refused), mode: 'record' };
    const log = capture();
    let summary: RunSummary;
    try {
      summary = await syncSearch(
        { ...fx.deps(fx.config(hubspotConfig(PEOPLE, CREDITS))), logger: log.logger },
        { search: 'people', runId: 'warn-1' },
      );
    } finally {
      fx.hubspot!.faults.reject = { values: new Set(), mode: 'record' };
    }
    expect(summary).toMatchObject({ status: 'completed', rejected: 2, linkErrors: records.length - 2 });
    expect(summary.warnings?.count).toBe(records.length);
    expect(summary.warnings?.first).toHaveLength(MAX_WARNING_REASONS);
    for (const reason of summary.warnings?.first ?? [])
      expect(reason).toMatch(/^(rejected \(\w+\): |link failed: company \S+ is not in HubSpot)/);
    // grouped by code and field, with a count and one example each; `run` prints the groups under the counts
    expect(summary.warnings?.groups).toEqual([
      {
        code: 'link_failed',
        count: records.length - 2,
        example: expect.stringMatching(/^company \S+ is not in HubSpot$/),
      },
      {
        code: 'INVALID_OPTION',
        field: 'record',
        count: 2,
        example: expect.stringMatching(
          /^Property values were not valid: record: Value p_\w+ was rejected \(INVALID_OPTION\)$/,
        ),
      },
    ]);
    const printed = formatSummary(summary).split('\n');
    expect(printed).toContain(`  warnings ${records.length}, by code and field:`);
    expect(printed).toContain(
      `    ${records.length - 2} x link_failed, e.g. ${summary.warnings?.groups?.[0]?.example}`,
    );
    expect(printed).toContain(`    2 x INVALID_OPTION [record], e.g. ${summary.warnings?.groups?.[1]?.example}`);
    const finished = log.lines.find((l) => l.msg === 'run finished');
    expect(finished).toMatchObject({ level: 40, status: 'completed', warnings: { count: records.length } });
    // no contact detail (every record carries an email) in the summary or the log
    expect(JSON.stringify(summary)).not.toMatch(/@/);
    expect(log.raw()).not.toMatch(/@/);

    // rejects alone: their reasons
    const companies = `
  - name: few-companies
    segment: icp
    entity: companies
    filter: {company: {headcount: {gte: 1, lte: 30}}}
    destination: crm
    object: companies
    matchOn: {field: warn_sync_id, from: id}
    fields: {name: name}
`;
    const ids = await fx.oracleIds('companies', FILTER);
    fx.hubspot!.faults.reject = { values: new Set(ids.slice(0, 2)), mode: 'record' };
    let rejectsOnly: RunSummary;
    try {
      rejectsOnly = await syncSearch(fx.deps(fx.config(hubspotConfig(companies, CREDITS))), {
        search: 'few-companies',
        runId: 'warn-c',
      });
    } finally {
      fx.hubspot!.faults.reject = { values: new Set(), mode: 'record' };
    }
    expect(rejectsOnly).toMatchObject({ status: 'completed', rejected: 2, warnings: { count: 2 } });
    expect(rejectsOnly.warnings?.first).toHaveLength(2);
    // the CRM's own reason (record ids are kept: they are not contact details)
    for (const reason of rejectsOnly.warnings?.first ?? [])
      expect(reason).toMatch(/^rejected \(INVALID_OPTION\): .*Value c_\w+ was rejected/);

    // a clean run: no warnings, logged at info
    const clean = capture();
    const again = await syncSearch(
      {
        ...fx.deps(
          fx.config(hubspotConfig(PEOPLE.replace('    associate: {company: {from: companyId}}\n', ''), CREDITS)),
        ),
        logger: clean.logger,
      },
      { search: 'people', runId: 'warn-2' },
    );
    expect(again.status).toBe('completed');
    expect(again.warnings).toBeUndefined();
    expect(clean.lines.find((l) => l.msg === 'run finished')).toMatchObject({ level: 30 });
  });
});

describe('queue processor with a reloadable config', () => {
  it(
    'reads getConfig once per job: a search added by a reload runs, and a run keeps the config it started ' + 'with',
    async () => {
      const one = (name: string, lte: number): string => `
  - name: ${name}
    segment: icp
    entity: companies
    filter: {company: {headcount: {gte: 1, lte: ${lte}}}}
    destination: crm
    object: companies
    matchOn: {field: reload_id, from: id}
    fields: {name: name}
`;
      let current: AppConfig = fx.config(hubspotConfig(one('first', 5)));
      let reads = 0;
      const processor = createSyncProcessor({
        ...fx.deps(current),
        config: undefined,
        getConfig: () => {
          reads += 1;
          return current;
        },
      });
      const first = (await processor(job('first', 'reload-1'), 'token', new AbortController().signal)) as RunSummary;
      expect(first.status).toBe('completed');
      // the new search exists only in the reloaded config
      current = fx.config(hubspotConfig(one('first', 5) + one('second', 6)));
      const second = (await processor(job('second', 'reload-2'), 'token', new AbortController().signal)) as RunSummary;
      expect(second.status).toBe('completed');
      expect(reads).toBe(2);

      // a reload during a run does not change it: the run plans (onPlan) on the config it started with
      const withBoth = current;
      const processorDuringRun = createSyncProcessor({
        ...fx.deps(withBoth),
        getConfig: () => {
          reads += 1;
          const at = current;
          current = fx.config(hubspotConfig(one('first', 5))); // 'second' removed right after this job read its config
          return at;
        },
      });
      const third = (await processorDuringRun(
        job('second', 'reload-3'),
        'token',
        new AbortController().signal,
      )) as RunSummary;
      expect(third).toMatchObject({ status: 'completed', search: 'second' });
      expect(reads).toBe(3);
    },
  );
});
