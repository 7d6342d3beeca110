/**
 * Malformed configs: each must fail with every problem placed at file:line:column with its config path, and the
 * message must never carry a secret. A handful also go through the real CLI (exit code 2, stderr lines).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, formatIssue, readConfig } from '../../src/config/index.js';
import { FIXTURES, SECRETS, fixtureEnv } from './config-fixtures.js';
import { runCli as cli } from './run-cli.js';

/** fixture name -> [line, column, path, a part of the message] of its (first) issue. */
const CASES: Record<string, [number, number, string, string]> = {
  'yaml-syntax': [25, 1, '', 'YAML: '],
  'duplicate-key': [25, 5, '', 'YAML: Map keys must be unique'],
  'unknown-top-key': [18, 1, 'revael', 'unknown key'],
  'unknown-search-key': [30, 5, 'searches[0].maxRecrods', 'unknown key'],
  'bad-filter-top-key': [26, 7, 'searches[0].filter.compnay', 'unknown key'],
  'wrong-type-headcount': [28, 26, 'searches[0].filter.company.headcount.gte', 'expected number'],
  'industry-not-array': [27, 29, 'searches[0].filter.company.industry.include', 'expected array'],
  'bad-enum-entity': [24, 13, 'searches[0].entity', 'expected one of "companies"|"persons"'],
  'bad-destination-type': [14, 11, 'destinations.sf.type', 'expected hubspot | salesforce'],
  'bad-overwrite': [34, 37, 'searches[0].fields.name.overwrite', 'expected one of'],
  'missing-required-segment': [22, 5, 'searches[0].segment', 'missing (required)'],
  'missing-source-baseurl': [1, 1, 'source.baseUrl', 'missing (required)'],
  'missing-matchon-field': [32, 5, 'searches[0].matchOn.field', 'externalIdField'],
  'literal-secret': [12, 18, 'destinations.crm.accessToken', 'secrets come only from the environment'],
  'literal-secret-mixed': [16, 19, 'destinations.sf.clientSecret', 'secrets come only from the environment'],
  'server-literal-password': [19, 37, 'server.auth.password', 'secrets come only from the environment'],
  'missing-var': [5, 15, 'source.auth.clientId', 'SI_CLIENT_ID_NOT_SET_ANYWHERE is not set'],
  'bad-var-syntax': [5, 15, 'source.auth.clientId', 'invalid variable name'],
  'bad-url': [2, 12, 'source.baseUrl', 'http(s) URL'],
  'duplicate-search-name': [35, 11, 'searches[1].name', "duplicate search name 'dach-software'"],
  'bad-search-name': [35, 11, 'searches[1].name', 'must match [a-z0-9][a-z0-9-_]*'],
  'empty-searches': [21, 11, 'searches', '>=1'],
  'unknown-destination': [43, 18, 'searches[1].destination', "unknown destination 'hubspot' (defined: crm, sf)"],
  'object-for-type': [31, 13, 'searches[0].object', 'hubspot objects are companies | contacts'],
  'entity-vs-object': [44, 13, 'searches[1].object', 'persons land in contacts on hubspot'],
  'view-bad-segment': [41, 26, 'searches[1].view[1]', 'expected one of "demographics"'],
  'contacts-not-allowlisted': [41, 26, 'searches[1].view[1]', "[key-accounts]; segment 'icp-dach' is not"],
  'associate-companies-ok-but-filter-person': [29, 15, 'searches[0].filter.person', 'only for entity: persons'],
  'bad-cron': [29, 22, 'searches[0].schedule.cron', 'invalid cron pattern'],
  'cron-field-count': [29, 22, 'searches[0].schedule.cron', 'expected 5 or 6 cron fields, got 4'],
  'bad-timezone': [29, 45, 'searches[0].schedule.timezone', "unknown time zone 'Europe/Atlantis'"],
  'bad-every': [42, 23, 'searches[1].schedule.every', '30m, 1h, 1d'],
  'schedule-both': [42, 16, 'searches[1].schedule.every', 'unknown key'],
  'max-records-zero': [30, 17, 'searches[0].maxRecords', '>0'],
  'fail-above-too-big': [30, 26, 'searches[0].rejects.failAbove', '<=1'],
  'request-timeout-zero': [17, 23, 'destinations.sf.requestTimeoutMs', '>0'],
  'offset-without-sort': [30, 11, 'searches[0].mode', 'set filter.options.sortFields'],
  'offset-too-deep': [31, 17, 'searches[0].maxRecords', 'at most 10100 records'],
  'sort-in-cursor-mode': [29, 29, 'searches[0].filter.options.sortFields', 'only in offset mode'],
  'headcount-range': [28, 20, 'searches[0].filter.company.headcount', 'gte (5000) must be <= lte (50)'],
  'credits-negative': [7, 24, 'source.credits.maxPerRun', '>=0'],
  'tokens-reserve-negative': [8, 21, 'source.tokens.reserve', '>=0'],
  'fallback-zero': [8, 28, 'source.fallbackLimits.search', '>0'],
  'page-size-too-big': [8, 13, 'source.pageSize', '<=100'],
  'worker-concurrency-zero': [18, 23, 'worker.concurrency', '>0'],
  'port-out-of-range': [19, 9, 'server.port', '<=65535'],
  'admin-actions-not-boolean': [19, 17, 'server.adminActions', 'expected boolean'],
  'run-actions-not-boolean': [19, 15, 'server.runActions', 'expected boolean'],
  'bad-destination-name': [13, 3, 'destinations.SF Org', 'invalid name: must match'],
  'view-duplicate': [41, 26, 'searches[1].view[1]', "segment 'demographics' listed twice"],
  'contacts-without-credit-caps': [40, 12, 'searches[1].view[0]', 'contacts cost credits'],
  'on-leave-no-fields': [30, 26, 'searches[0].onLeave.setFields', 'needs at least one field'],
  'leave-share-too-big': [30, 23, 'searches[0].leave.maxShare', '<=1'],
  'refresh-changed-offset': [33, 21, 'searches[0].refresh.mode', 'an offset search walks in full'],
  'on-leave-unknown': [30, 14, 'searches[0].onLeave', 'nothing'],
};

const fixture = (name: string): string => join(FIXTURES, 'bad', `${name}.yaml`);

async function loadError(file: string): Promise<ConfigError> {
  try {
    await readConfig({ path: file, env: fixtureEnv() });
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error(`${file} loaded, expected a ConfigError`);
}

function expectNoSecrets(text: string): void {
  for (const secret of Object.values(SECRETS)) expect(text).not.toContain(secret);
  // Literal secrets written in the fixtures themselves.
  for (const literal of ['pat-na1-literal-secret-123', 'hunter2']) expect(text).not.toContain(literal);
}

describe('malformed configs', () => {
  it('the base the fixtures derive from is valid', async () => {
    const loaded = await readConfig({ path: join(FIXTURES, 'valid-base.yaml'), env: fixtureEnv() });
    expect(loaded.config.searches.map((s) => s.name)).toEqual(['dach-software', 'dach-people']);
  });

  it('every fixture under fixtures/bad has its expectation here', () => {
    const names = readdirSync(join(FIXTURES, 'bad')).map((file) => file.replace(/\.yaml$/, ''));
    expect(names.sort()).toEqual(Object.keys(CASES).sort());
  });

  it.each(Object.entries(CASES))('%s', async (name, [line, column, path, message]) => {
    const error = await loadError(fixture(name));
    expect(error.code).toBe('config_invalid');
    const [issue] = error.issues;
    expect({ line: issue?.line, column: issue?.column, path: issue?.path }).toEqual({ line, column, path });
    expect(issue?.message).toContain(message);
    expect(issue?.file).toBe(fixture(name));
    expect(error.message).toContain(formatIssue(issue!));
    expectNoSecrets(error.message);
  });

  it('reports every problem of a file, in file order', async () => {
    const error = await loadError(join(FIXTURES, 'many-problems.yaml'));
    expect(error.issues.map((i) => `${i.line}:${i.column} ${i.path}`)).toEqual([
      '10:3 destinations.crm.accessToken',
      '12:5 destinations.crm.accesToken',
      '21:13 searches[0].entity',
      '25:16 searches[0].filter.company.headcount.gte',
    ]);
    expectNoSecrets(error.message);
  });
});

describe('validate command', () => {
  it.each(['literal-secret', 'wrong-type-headcount', 'contacts-not-allowlisted', 'missing-var', 'duplicate-key'])(
    'exits 2 and prints %s as file:line:column path: message',
    async (name) => {
      const [line, column, path, message] = CASES[name]!;
      const { code, stdout, stderr } = await cli(['validate', '--config', fixture(name)], fixtureEnv());
      expect(code).toBe(2);
      const place = `${fixture(name)}:${line}:${column}`;
      const first = stderr.split('\n')[0] ?? '';
      expect(first.startsWith(path ? `${place} ${path}: ` : `${place}: `)).toBe(true);
      expect(first).toContain(message);
      expectNoSecrets(stdout + stderr);
    },
  );

  it('prints every problem one per line, and --json as one object', async () => {
    const file = join(FIXTURES, 'many-problems.yaml');
    const text = await cli(['validate', '--config', file], fixtureEnv());
    expect(text.code).toBe(2);
    expect(text.stderr.trim().split('\n')).toHaveLength(4);
    const json = await cli(['validate', '--json', '--config', file], fixtureEnv());
    expect(json.code).toBe(2);
    const body = JSON.parse(json.stdout) as { valid: boolean; issues: { path: string }[] };
    expect(body.valid).toBe(false);
    expect(body.issues.map((i) => i.path)).toContain('searches[0].entity');
    expectNoSecrets(text.stderr + json.stdout);
  });

  it('exits 0 for the example configs, config path from $PROSPECT_SYNC_CONFIG', async () => {
    const ok = await cli(['validate'], {
      PROSPECT_SYNC_CONFIG: 'config/examples/salesforce.yaml',
      ...fixtureEnv({
        SI_BASE_URL: 'https://si.example.test',
        SI_TOKEN_URL: 'https://si.example.test/oauth/token',
        SI_CLIENT_ID: 'c',
        SF_CLIENT_ID: 'sf',
      }),
    });
    expect(ok.stderr).toBe('');
    expect(ok.stdout).toContain('config/examples/salesforce.yaml: valid (3 searches');
    expect(ok.code).toBe(0);
  });

  it('exits 2 on an unknown option and when the file is missing', async () => {
    expect((await cli(['validate', '--bogus'], {})).code).toBe(2);
    const missing = await cli(['validate', '--config', join(FIXTURES, 'nope.yaml')], {});
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('nope.yaml: file not found');
  });
});
