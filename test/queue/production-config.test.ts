/**
 * The shipped production config (config/prospect-sync.yaml, what `start` loads without --config) has no emulator
 * defaults and refuses to start while a required variable is missing, naming it; the demo config keeps the
 * emulator defaults and loads with no environment at all.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError, readConfig } from '../../src/config/index.js';
import { cli } from './cli-process.js';

const PROD = 'config/prospect-sync.yaml';
const REQUIRED = [
  'SI_BASE_URL',
  'SI_TOKEN_URL',
  'SI_CLIENT_ID',
  'SI_CLIENT_SECRET',
  'HUBSPOT_TOKEN',
  'DASHBOARD_PASSWORD',
];
const FULL_ENV = {
  SI_BASE_URL: 'https://si.example.test/api',
  SI_TOKEN_URL: 'https://si.example.test/oauth/token',
  SI_CLIENT_ID: 'client-1',
  SI_CLIENT_SECRET: 'secret-1',
  HUBSPOT_TOKEN: 'hs-token-1',
  DASHBOARD_PASSWORD: 'dash-pw-1',
};

describe('production config', () => {
  it('has no default pointing at the emulators or carrying demo credentials', () => {
    const text = readFileSync(PROD, 'utf8');
    const defaults = [...text.matchAll(/\$\{[A-Z_]+:-([^}]*)\}/g)].map((m) => m[1]);
    expect(defaults.sort()).toEqual(['127.0.0.1', '3000', 'admin', 'https://api.hubapi.com'].sort());
    for (const demo of ['4010', '4020', '4030', 'demo-client', 'demo-secret', 'demo-hubspot-token'])
      expect(text).not.toContain(demo);
  });

  it('names every missing required variable with its line, and loads once they are set', async () => {
    const error = await readConfig({ path: PROD, env: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as ConfigError).message;
    for (const name of REQUIRED)
      expect(message).toMatch(new RegExp(`${PROD}:\\d+:\\d+ .*environment variable ${name} is not set`));

    // one missing at a time: exactly that one is named
    for (const name of REQUIRED) {
      const env: NodeJS.ProcessEnv = { ...FULL_ENV };
      delete env[name];
      const e = (await readConfig({ path: PROD, env }).catch((x: unknown) => x)) as ConfigError;
      expect(e.message.split('\n').filter((l) => l.startsWith(PROD))).toEqual([
        expect.stringContaining(`environment variable ${name} is not set`),
      ]);
    }

    const { config } = await readConfig({ path: PROD, env: { ...FULL_ENV, PROSPECT_SYNC_HOST: '0.0.0.0' } });
    expect(config.source.baseUrl).toBe(FULL_ENV.SI_BASE_URL);
    expect(config.destinations.crm).toMatchObject({ baseUrl: 'https://api.hubapi.com' });
    expect(config.server).toMatchObject({
      host: '0.0.0.0',
      auth: { username: 'admin', password: FULL_ENV.DASHBOARD_PASSWORD },
    });
  });

  it(
    '`start` without --config refuses to start (exit 2) naming the missing variables, and never the secrets it ' +
      'has',
    async () => {
      const { SI_BASE_URL: _unset, DASHBOARD_PASSWORD: _unset2, ...env } = FULL_ENV;
      const c = cli(['start'], { ...env, PROSPECT_SYNC_CONFIG: '' });
      const code = await c.exited;
      expect(code).toBe(2);
      expect(c.err()).toContain('environment variable SI_BASE_URL is not set');
      expect(c.err()).toContain('environment variable DASHBOARD_PASSWORD is not set');
      expect(c.err()).not.toContain(FULL_ENV.SI_CLIENT_SECRET);
      expect(c.out()).not.toContain('started');
    },
    30_000,
  );

  it('config/demo.yaml points at the emulators with no environment at all', async () => {
    const { config } = await readConfig({ path: 'config/demo.yaml', env: {} });
    expect(config.source.baseUrl).toBe('http://127.0.0.1:4010');
    expect(config.destinations.crm).toMatchObject({
      baseUrl: 'http://127.0.0.1:4020',
      accessToken: 'demo-hubspot-token',
    });
  });
});
