/**
 * Writing a config as a new user does: `values` lists what a filter accepts (any dictionary answer shape),
 * `validate --online` suggests the value a typo meant, `emulate` prints every variable the configs need, `runs`
 * without a search shows each search's last run, and the texts count their nouns right.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHubSpotEmulator, type HubSpotEmulator } from '../../src/emulators/hubspot/index.js';
import { startSalesIntelEmulator, type SalesIntelEmulator } from '../../src/emulators/sales-intel/index.js';
import { freePort } from '../../src/shared/free-port.js';
import { testRedis } from '../helpers/redis.js';
import { runCli, type CliResult } from '../config/run-cli.js';

let plain: SalesIntelEmulator;
let shaped: SalesIntelEmulator;
let hubspot: HubSpotEmulator;
let redisCtx: Awaited<ReturnType<typeof testRedis>>;
const dir = mkdtempSync(join(tmpdir(), 'ps-authoring-'));

beforeAll(async () => {
  [plain, shaped] = await Promise.all([
    startSalesIntelEmulator({ companies: 100, persons: 100 }),
    startSalesIntelEmulator({ companies: 100, persons: 100, basePath: '/v3', dictionaryStyle: 'values' }),
  ]);
  hubspot = await startHubSpotEmulator({ port: 0, accessTokens: ['hub-token'] });
  redisCtx = await testRedis('authoring');
});
afterAll(async () => {
  await Promise.all([plain?.close(), shaped?.close(), hubspot?.close()]);
  await redisCtx?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

const CONFIG = `source:
  baseUrl: \${SI_BASE_URL}
  auth: {tokenUrl: "\${SI_TOKEN_URL}", clientId: demo-client, clientSecret: "\${SI_CLIENT_SECRET}"}
destinations:
  crm: {type: hubspot, accessToken: "\${HUBSPOT_TOKEN}", baseUrl: "\${HUBSPOT_BASE_URL}"}
searches:
  - name: people
    segment: s
    entity: persons
    filter:
      person:
        department: {include: [enginering]}
    destination: crm
    object: contacts
    matchOn: {field: k, from: id}
    fields: {firstname: firstName}
`;

function cli(emulator: SalesIntelEmulator, args: string[], yaml = CONFIG): Promise<CliResult> {
  const file = join(dir, `${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, yaml);
  return runCli([...args, '--config', file], {
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    QUEUE_PREFIX: `${redisCtx.prefix}:${emulator === plain ? 'plain' : 'shaped'}`,
    SI_BASE_URL: emulator.url,
    SI_TOKEN_URL: emulator.tokenUrl,
    SI_CLIENT_SECRET: 'demo-secret',
    HUBSPOT_TOKEN: 'hub-token',
    HUBSPOT_BASE_URL: hubspot.url,
  });
}

describe('values command', () => {
  it('lists a dictionary with labels, filtered by --search; a second call is served from the cache', async () => {
    plain.resetStats();
    const r = await cli(plain, ['values', 'seniority', '--search', 'LEV']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split('\n')).toEqual(['c_level  C Level']);
    const again = await cli(plain, ['values', 'seniority', '--json']);
    expect(JSON.parse(again.stdout)).toMatchObject({
      dictionary: 'seniority',
      values: expect.arrayContaining([{ value: 'vp', label: 'Vp' }]),
    });
    expect(plain.stats().operations.dictionary).toBe(1);
  });

  it('reads an answer shaped {dictionary, values: [{code, label}]} under a path prefix', async () => {
    const r = await cli(shaped, ['values', 'department', '--json']);
    expect(r.code).toBe(0);
    const { values } = JSON.parse(r.stdout) as { values: { value: string; label?: string }[] };
    expect(values).toContainEqual({ value: 'engineering', label: 'Engineering' });
  });

  it('an unknown dictionary exits 2 naming the ones filters use', async () => {
    const r = await cli(plain, ['values', 'wizardry']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("no dictionary 'wizardry'");
    expect(r.stderr).toContain('industry, country, region, technology, seniority, department');
  });
});

describe('validate --online', () => {
  it('suggests the value a typo meant, whatever the answer shape', async () => {
    for (const emulator of [plain, shaped]) {
      const r = await cli(emulator, ['validate', '--online']);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("'enginering' is not in the department dictionary; did you mean 'engineering'?");
    }
  });

  it(
    'asks the API about each filter (a free count) and reports a refused key at its line; plan and run ' + 'too',
    async () => {
      const yaml = CONFIG.replace('department: {include: [enginering]}', 'seniorty: {include: [vp]}');
      const line = yaml.split('\n').findIndex((l) => l.includes('seniorty')) + 1;
      const at = new RegExp(
        `\\.yaml:${line}:\\d+ searches\\[0\\]\\.filter\\.person\\.seniorty: the API refused the filter: unknown field`,
      );
      // (the other emulator: its run history stays empty for the `runs` test below)
      shaped.resetStats();
      const validate = await cli(shaped, ['validate', '--online'], yaml);
      expect(validate.code).toBe(2);
      expect(validate.stderr).toMatch(at);
      expect(validate.stdout).not.toContain('valid');
      const plan = await cli(shaped, ['plan', 'people'], yaml);
      expect(plan.code).toBe(2);
      expect(plan.stderr).toMatch(at);
      const run = await cli(shaped, ['run', 'people'], yaml);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(at);
      expect(shaped.stats().tokensCharged).toBe(0);
    },
  );

  it('checks each suppress.crm opt-out property in HubSpot and reports a wrong one at its line', async () => {
    const yaml =
      CONFIG.replace('enginering', 'engineering').replace(
        '    fields: {firstname: firstName}',
        '    fields: {firstname: firstName}\n    suppress: {crm: {property: firstname}}',
      ) + 'suppress: {crm: {fields: [hs_email_optout, no_such_optout]}}\n';
    const lineOf = (text: string): number => yaml.split('\n').findIndex((l) => l.includes(text)) + 1;
    const r = await cli(plain, ['validate', '--online'], yaml);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      new RegExp(
        `\\.yaml:${lineOf('no_such_optout')}:\\d+ suppress\\.crm\\.fields\\[1\\]: ` +
          'property contacts\\.no_such_optout \\(suppress\\.crm\\) does not exist',
      ),
    );
    expect(r.stderr).toMatch(
      new RegExp(
        `\\.yaml:${lineOf('property: firstname')}:\\d+ searches\\[0\\]\\.suppress\\.crm\\.property: ` +
          'property contacts\\.firstname \\(suppress\\.crm\\) is of type string',
      ),
    );
    expect(r.stderr).not.toContain('hs_email_optout');
  });

  it('says "1 search, 1 destination" for one of each', async () => {
    const r = await cli(plain, ['validate'], CONFIG.replace('enginering', 'engineering'));
    expect(r.stdout).toContain('(1 search, 1 destination)');
  });
});

describe('first steps', () => {
  it('runs without a search lists the last run of each search', async () => {
    const r = await cli(plain, ['runs']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe('people  never run');
    const json = await cli(plain, ['runs', '--json']);
    expect(JSON.parse(json.stdout)).toEqual({ searches: [{ search: 'people', last: null }] });
  });

  it('demo --help names the config it really uses', async () => {
    const r = await runCli(['demo', '--help']);
    expect(r.stdout).toContain('default: config/demo.yaml');
  });

  it('emulate prints every variable the configs need, the dashboard password included', async () => {
    const ports = [await freePort(), await freePort(), await freePort()];
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'src/cli/main.ts',
        'emulate',
        '--json',
        '--si-port',
        String(ports[0]),
        '--hubspot-port',
        String(ports[1]),
        '--sf-port',
        String(ports[2]),
      ],
      {
        env: { PATH: process.env.PATH },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    try {
      const line = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          if (out.includes('\n')) resolve(out.split('\n')[0]!);
        });
        child.on('exit', (code) => reject(new Error(`emulate exited ${code}`)));
      });
      const { env } = JSON.parse(line) as { env: Record<string, string> };
      for (const name of [
        'SI_BASE_URL',
        'SI_TOKEN_URL',
        'SI_CLIENT_ID',
        'SI_CLIENT_SECRET',
        'HUBSPOT_TOKEN',
        'HUBSPOT_BASE_URL',
        'SF_LOGIN_URL',
        'SF_CLIENT_ID',
        'SF_CLIENT_SECRET',
        'DASHBOARD_PASSWORD',
      ]) {
        expect(env[name], name).toBeTruthy();
      }
      // With exactly those variables, the production config validates.
      const r = await runCli(['validate', '--config', 'config/prospect-sync.yaml'], env);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
    } finally {
      child.kill('SIGTERM');
    }
  });
});
