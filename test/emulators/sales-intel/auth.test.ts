import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSalesIntelEmulator, type SalesIntelEmulator } from '../../../src/emulators/sales-intel/index.js';
import { call, getToken } from './emulator-client.js';

const form = 'application/x-www-form-urlencoded';

describe('sales-intel emulator: OAuth and 401', () => {
  let emu: SalesIntelEmulator;
  beforeAll(async () => {
    emu = await startSalesIntelEmulator({ companies: 500, persons: 1000, tokenLifetimeSeconds: 0.3 });
  });
  afterAll(() => emu.close());

  it('issues a bearer token for credentials in the form body or by HTTP Basic', async () => {
    const body = await fetch(emu.tokenUrl, {
      method: 'POST',
      headers: { 'content-type': form },
      body: 'grant_type=client_credentials&client_id=demo-client&client_secret=demo-secret',
    });
    expect(body.status).toBe(200);
    const json = (await body.json()) as Record<string, unknown>;
    expect(json).toMatchObject({ token_type: 'Bearer', expires_in: 0.3 });
    expect(typeof json.access_token).toBe('string');
    const basic = await fetch(emu.tokenUrl, {
      method: 'POST',
      headers: {
        'content-type': form,
        authorization: `Basic ${Buffer.from('demo-client:demo-secret').toString('base64')}`,
      },
      body: 'grant_type=client_credentials',
    });
    expect(basic.status).toBe(200);
  });

  it('rejects a bad client, another grant, a missing grant and a JSON body', async () => {
    const post = (body: string, type = form) =>
      fetch(emu.tokenUrl, { method: 'POST', headers: { 'content-type': type }, body });
    const bad = await post('grant_type=client_credentials&client_id=demo-client&client_secret=wrong');
    expect(bad.status).toBe(401);
    expect(await bad.json()).toMatchObject({ error: 'invalid_client' });
    const unknown = await post('grant_type=client_credentials&client_id=nobody&client_secret=demo-secret');
    expect(unknown.status).toBe(401);
    const grant = await post('grant_type=password&client_id=demo-client&client_secret=demo-secret');
    expect(grant.status).toBe(400);
    expect(await grant.json()).toMatchObject({ error: 'unsupported_grant_type' });
    expect((await post('client_id=demo-client&client_secret=demo-secret')).status).toBe(400);
    expect((await post('{"grant_type":"client_credentials"}', 'application/json')).status).toBe(400);
  });

  it('answers 401 JSON {message} for a missing, malformed or unknown token, on every route but /health', async () => {
    for (const auth of [undefined, 'Token abc', 'Bearer', 'Bearer not-a-token']) {
      const res = await fetch(`${emu.url}/companies/filter/count`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(auth === undefined ? {} : { authorization: auth }) },
        body: '{}',
      });
      expect(res.status).toBe(401);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      const json = (await res.json()) as Record<string, unknown>;
      expect(typeof json.message).toBe('string');
      expect(json).not.toHaveProperty('error');
    }
    for (const path of ['/dictionaries/industry', '/settings/compliance'])
      expect((await call(emu, undefined, 'GET', path)).status).toBe(401);
    expect((await call(emu, undefined, 'POST', '/persons/filter', {})).status).toBe(401);
    const health = await call(emu, undefined, 'GET', '/health');
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ status: 'ok' });
  });

  it('expires tokens after their lifetime', async () => {
    const token = await getToken(emu);
    expect((await call(emu, token, 'POST', '/companies/filter/count', {})).status).toBe(200);
    await new Promise((r) => setTimeout(r, 350));
    expect((await call(emu, token, 'POST', '/companies/filter/count', {})).status).toBe(401);
    expect((await call(emu, await getToken(emu), 'POST', '/companies/filter/count', {})).status).toBe(200);
  });

  it('expireAllTokens() invalidates every issued token, not later ones', async () => {
    const a = await getToken(emu);
    emu.expireAllTokens();
    expect((await call(emu, a, 'POST', '/companies/filter/count', {})).status).toBe(401);
    expect((await call(emu, await getToken(emu), 'POST', '/companies/filter/count', {})).status).toBe(200);
  });
});
