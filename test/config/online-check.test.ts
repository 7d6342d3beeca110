/** `validate --online`: filter values against the API's dictionaries, through the real source client and emulator. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSalesIntelEmulator, type SalesIntelEmulator } from '../../src/emulators/sales-intel/index.js';
import { testRedis } from '../helpers/redis.js';
import { SECRETS, runCli, type CliResult } from './config-fixtures.js';

let emulator: SalesIntelEmulator;
let redisCtx: Awaited<ReturnType<typeof testRedis>>;
const dir = mkdtempSync(join(tmpdir(), 'ps-online-'));

beforeAll(async () => {
  emulator = await startSalesIntelEmulator({ companies: 200, persons: 400, basePath: '/api/v2' });
  redisCtx = await testRedis('config-online');
});

afterAll(async () => {
  await emulator?.close();
  await redisCtx?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

const CONFIG = `source:
  baseUrl: \${SI_BASE_URL}
  auth: {tokenUrl: "\${SI_TOKEN_URL}", clientId: demo-client, clientSecret: "\${SI_CLIENT_SECRET}"}
destinations:
  crm: {type: hubspot, accessToken: "\${HUBSPOT_TOKEN}"}
searches:
  - name: people
    segment: s
    entity: persons
    filter:
      company:
        industry: {include: [software, sofware]}
        location: {country: {include: [DE, XX]}}
      person:
        seniority: {include: [vp]}
        department: {include: [engineering, wizardry]}
    destination: crm
    object: contacts
    matchOn: {field: k, from: id}
    fields: {firstname: firstName}
`;

function cli(file: string): Promise<CliResult> {
  return runCli(['validate', '--online', '--config', file], {
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    QUEUE_PREFIX: redisCtx.prefix,
    SI_BASE_URL: emulator.url,
    SI_TOKEN_URL: emulator.tokenUrl,
    SI_CLIENT_SECRET: 'demo-secret',
    HUBSPOT_TOKEN: SECRETS.HUBSPOT_TOKEN,
  });
}

describe('validate --online', () => {
  it('names each value missing from its dictionary at its line, exit 2', async () => {
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, CONFIG);
    emulator.resetStats();
    const { code, stderr } = await cli(file);
    expect(stderr.trim().split('\n')).toEqual([
      `${file}:12:40 searches[0].filter.company.industry.include[1]: 'sofware' is not in the industry dictionary; did you mean 'software'? (prospect-sync values industry lists them)`,
      `${file}:13:44 searches[0].filter.company.location.country.include[1]: 'XX' is not in the country dictionary (prospect-sync values country lists them)`,
      `${file}:16:45 searches[0].filter.person.department.include[1]: 'wizardry' is not in the department dictionary (prospect-sync values department lists them)`,
    ]);
    expect(code).toBe(2);
    // industry, country, seniority, department: each dictionary fetched once.
    expect(emulator.stats().operations.dictionary).toBe(4);
  });

  it('exits 0 when every value is in its dictionary', async () => {
    const file = join(dir, 'good.yaml');
    writeFileSync(file, CONFIG.replace(', sofware', '').replace(', XX', '').replace(', wizardry', ''));
    const { code, stdout, stderr } = await cli(file);
    expect(stderr).toBe('');
    expect(stdout).toContain('filter values checked against the API dictionaries');
    expect(code).toBe(0);
  });

  it("accepts the example config's filter values", async () => {
    const { code, stderr } = await cli('config/demo.yaml');
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });
});
