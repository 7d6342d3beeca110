/** The contract's example YAML and the example configs in config/ load as written; the schema command. */
import { join } from 'node:path';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { parse } from 'yaml';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { configJsonSchema, readConfig } from '../../src/config/index.js';
import { FIXTURES, fixtureEnv } from './config-fixtures.js';
import { runCli } from './run-cli.js';

const CONTRACT_ENV = fixtureEnv({
  SI_BASE_URL: 'https://si.example.test/api/v2',
  SI_TOKEN_URL: 'https://si.example.test/oauth/token',
  SI_CLIENT_ID: 'client-1',
  SF_CLIENT_ID: 'sf-client-1',
});

describe("the contract's example", () => {
  it('loads as written, with every default filled in', async () => {
    const loaded = await readConfig({ path: join(FIXTURES, 'contract-example.yaml'), env: CONTRACT_ENV });
    const { config } = loaded;
    expect(config.source.baseUrl).toBe('https://si.example.test/api/v2');
    expect(config.source.credits).toEqual({ maxPerRun: 1000, maxPerDay: 5000 });
    expect(config.source.paths.dictionaries).toBe('/dictionaries/{name}');
    expect(config.source.paths.search).toEqual({ companies: '/companies/filter', persons: '/persons/filter' });
    expect(config.source).toMatchObject({ idField: 'id', pageSize: 100, maxJourneyRecords: 90_000 });
    expect(config.destinations.crm).toMatchObject({ type: 'hubspot', baseUrl: 'https://api.hubapi.com' });
    // No default: the portal's limit is learned from its answers; a value set is an upper bound.
    expect(config.destinations.crm).not.toHaveProperty('requestsPer10s');
    expect(config.destinations.sf).toMatchObject({ type: 'salesforce', apiVersion: '62.0', bulkThreshold: 2000 });
    const [search] = config.searches;
    expect(search).toMatchObject({
      name: 'dach-software',
      mode: 'cursor',
      schedule: { cron: '0 6 * * *', timezone: 'Europe/Berlin' },
      matchOn: { field: 'prospect_sync_id', from: 'id' },
      fields: { name: 'name', industry: { from: 'industry', overwrite: 'ifEmpty' } },
    });
    // The filter is the API body, passed through as written.
    expect(search?.filter).toEqual({
      company: {
        industry: { include: ['software'] },
        location: { type: 'hq', country: { include: ['DE', 'AT', 'CH'] } },
        headcount: { gte: 50, lte: 5000 },
      },
    });
    // view/associate mean nothing for a companies search: dropped, with a warning naming their lines.
    expect(search?.view).toBeUndefined();
    expect(search?.associate).toBeUndefined();
    expect(loaded.warnings.map((w) => `${w.line} ${w.path}`)).toEqual([
      '35 searches[0].view',
      '46 searches[0].associate',
    ]);
  });

  it('`validate` accepts it (exit 0) and prints the two warnings', async () => {
    const file = join(FIXTURES, 'contract-example.yaml');
    const { code, stdout, stderr } = await runCli(['validate', '--config', file], CONTRACT_ENV);
    expect(stderr.trim().split('\n')).toEqual([
      `warning: ${file}:35:5 searches[0].view: ignored: only for entity: persons`,
      `warning: ${file}:46:5 searches[0].associate: ignored: only for entity: persons`,
    ]);
    expect(stdout).toContain('valid (1 search, 2 destinations)');
    expect(code).toBe(0);
  });
});

describe('example configs in config/', () => {
  it('config/demo.yaml runs against the emulators with no environment at all', async () => {
    const { config } = await readConfig({ path: 'config/demo.yaml', env: {} });
    expect(config.source.baseUrl).toBe('http://127.0.0.1:4010');
    expect(config.source.auth).toMatchObject({ clientId: 'demo-client', clientSecret: 'demo-secret' });
    expect(config.searches.map((s) => [s.entity, s.object])).toEqual([
      ['companies', 'companies'],
      ['persons', 'contacts'],
    ]);
    expect(config.searches[1]?.associate).toEqual({ company: { from: 'companyId' } });
  });

  it('config/examples/salesforce.yaml resolves matchOn.field from externalIdField', async () => {
    const env = {
      SI_BASE_URL: 'https://si.example.test',
      SI_TOKEN_URL: 'https://si.example.test/oauth/token',
      SI_CLIENT_ID: 'c',
      SI_CLIENT_SECRET: 's',
      SF_CLIENT_ID: 'sf',
      SF_CLIENT_SECRET: 'x',
    };
    const { config } = await readConfig({ path: 'config/examples/salesforce.yaml', env });
    expect(config.searches.map((s) => s.matchOn.field)).toEqual([
      'Prospect_Sync_Id__c',
      'Prospect_Sync_Id__c',
      'Prospect_Sync_Id__c',
    ]);
    expect(config.destinations.sf).toMatchObject({ clientSecret: 'x', maxApiShare: 0.5 });
    expect(config.searches[2]).toMatchObject({ mode: 'offset', maxRecords: 100 });
  });
});

describe('JSON Schema', () => {
  const schema = configJsonSchema();

  it('describes every section and rejects unknown keys', () => {
    const props = schema.properties as Record<
      string,
      { properties?: Record<string, unknown>; additionalProperties?: unknown }
    >;
    expect(Object.keys(props).sort()).toEqual([
      'alerts',
      'destinations',
      'leave',
      'rejects',
      'reveal',
      'searches',
      'server',
      'source',
      'suppress',
      'worker',
    ]);
    expect(Object.keys(props.source?.properties ?? {})).toEqual(
      expect.arrayContaining([
        'baseUrl',
        'auth',
        'fallbackLimits',
        'tokens',
        'credits',
        'paths',
        'idField',
        'pageSize',
        'parallelism',
        'maxJourneyRecords',
      ]),
    );
    expect(props.source?.additionalProperties).toBe(false);
    expect(schema.required).toEqual(expect.arrayContaining(['source', 'destinations', 'searches']));
  });

  it('is a JSON Schema that accepts the example configs and rejects broken ones', () => {
    const { $schema, ...body } = schema;
    expect($schema).toBe('https://json-schema.org/draft/2020-12/schema');
    // ajv 6 (draft-07) understands every keyword this schema uses.
    const ajv = new Ajv({ allErrors: true });
    (addFormatsModule as unknown as (a: Ajv) => Ajv)(ajv);
    const validate = ajv.compile(body);
    for (const file of [
      'config/prospect-sync.yaml',
      'config/demo.yaml',
      'config/examples/salesforce.yaml',
      join(FIXTURES, 'contract-example.yaml'),
    ]) {
      const ok = validate(parse(readFileSync(file, 'utf8')));
      expect(validate.errors ?? [], file).toEqual([]);
      expect(ok).toBe(true);
    }
    for (const bad of [
      'unknown-top-key',
      'bad-enum-entity',
      'wrong-type-headcount',
      'missing-required-segment',
      'literal-secret',
      'literal-secret-mixed',
    ]) {
      expect(validate(parse(readFileSync(join(FIXTURES, 'bad', `${bad}.yaml`), 'utf8'))), bad).toBe(false);
    }
  });

  it('`schema` prints it and exits 0', async () => {
    const { code, stdout } = await runCli(['schema']);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual(JSON.parse(JSON.stringify(schema)));
  });
});
