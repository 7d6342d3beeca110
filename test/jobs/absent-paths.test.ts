/**
 * A mapped record path that no record of the run has (`jobtitle: job_title` where the field is `jobTitle`) is named
 * in the run summary's warnings, with how many records lacked it; a path the records have is not.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syncSearch } from '../../jobs/sync-search.js';
import { hubspotConfig, startFixture, type Fixture } from './sync-fixture.js';

let fx: Fixture;
beforeAll(async () => {
  fx = await startFixture('absent-paths');
});
afterAll(async () => fx.close());

const FILTER = { company: { headcount: { gte: 1, lte: 8 } } };
const persons = (name: string, fields: string): string => `
  - name: ${name}
    segment: icp
    entity: persons
    filter: {company: {headcount: {gte: 1, lte: 8}}}
    view: [demographics]
    destination: crm
    object: contacts
    matchOn: {field: absent_paths_id, from: id}
    fields: ${fields}
`;

describe('absent mapped paths', () => {
  it.each([false, true])('are warned by name with their count (dry run: %s)', async (dryRun) => {
    const expected = await fx.oracleIds('persons', FILTER);
    expect(expected.length).toBeGreaterThan(3);
    const search = `typo-${String(dryRun)}`;
    const config = fx.config(
      hubspotConfig(persons(search, '{firstname: firstName, jobtitle: job_title, city: demographics.town}')),
    );
    const summary = await syncSearch(fx.deps(config), { search, runId: `${search}-1`, dryRun });
    expect(summary).toMatchObject({ status: 'completed', unique: expected.length, rejected: 0 });
    const n = expected.length;
    expect(summary.warnings?.first).toEqual([
      `mapped path job_title was absent in ${n} of ${n} records`,
      `mapped path demographics.town was absent in ${n} of ${n} records`,
    ]);
    expect(summary.warnings?.count).toBe(2);
  });

  it('a mapping whose paths the records have warns nothing', async () => {
    const config = fx.config(
      hubspotConfig(persons('fine', '{firstname: firstName, jobtitle: jobTitle, city: demographics.city}')),
    );
    const summary = await syncSearch(fx.deps(config), { search: 'fine', runId: 'fine-1' });
    expect(summary.status).toBe('completed');
    expect(summary.warnings).toBeUndefined();
  });
});
