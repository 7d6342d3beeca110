import { describe, expect, it } from 'vitest';
import { startAllEmulators, type EmulatorEnv } from '../../src/emulators/start-all.js';
import { cli } from './cli-process.js';
import { waitFor } from './queue-env.js';
import { closeAfterEach } from '../helpers/closers.js';

/** Proves each URL + credential in `env` works against its emulator. */
async function checkEnv(env: EmulatorEnv): Promise<void> {
  expect((await fetch(`${env.SI_BASE_URL}/health`)).status).toBe(200);
  const si = await fetch(env.SI_TOKEN_URL, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: env.SI_CLIENT_ID,
      client_secret: env.SI_CLIENT_SECRET,
    }),
  });
  expect(si.status).toBe(200);

  const props = `${env.HUBSPOT_BASE_URL}/crm/v3/properties/companies`;
  expect((await fetch(props, { headers: { authorization: `Bearer ${env.HUBSPOT_TOKEN}` } })).status).toBe(200);
  expect((await fetch(props, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);

  const sf = await fetch(`${env.SF_LOGIN_URL}/services/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: env.SF_CLIENT_ID,
      client_secret: env.SF_CLIENT_SECRET,
    }),
  });
  expect(sf.status).toBe(200);
}

describe('emulators together', () => {
  const closers = closeAfterEach();

  it('startAllEmulators: three emulators and an env that works against them', async () => {
    const all = await startAllEmulators({
      ports: { salesIntel: 0, hubspot: 0, salesforce: 0 },
      salesIntel: { companies: 100, persons: 100 },
    });
    closers.push(all.close);
    expect(new Set(Object.values(all.urls)).size).toBe(3);
    await checkEnv(all.env);
  });

  it('`emulate --json` prints urls and env, serves them, and exits 0 on SIGTERM', async () => {
    const run = cli(['emulate', '--si-port', '0', '--hubspot-port', '0', '--sf-port', '0', '--json'], {});
    closers.push(async () => {
      if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill('SIGKILL');
    });
    const line = await waitFor(
      () =>
        run
          .out()
          .split('\n')
          .find((l) => l.startsWith('{')),
      30_000,
    );
    const printed = JSON.parse(line) as { urls: Record<string, string>; env: EmulatorEnv };
    expect(Object.keys(printed.urls).sort()).toEqual(['hubspot', 'salesIntel', 'salesforce']);
    await checkEnv(printed.env);
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
  });

  it('`emulate` rejects a bad port with exit 2', async () => {
    const run = cli(['emulate', '--si-port', 'x'], {});
    expect(await run.exited).toBe(2);
    expect(run.err()).toContain('invalid port');
  });
});
