import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { openQueues } from '../../src/queue/index.js';
import { startDashboardServer, type DashboardOptions } from '../../src/server/index.js';
import type { SavedSearch } from '../../src/config/index.js';
import { createLogger, silentLogger } from '../../src/shared/logger.js';
import { queueEnv } from '../queue/queue-env.js';
import { closeAfterEach } from '../helpers/closers.js';
import { rawRequest } from './raw-request.js';

const AUTH = { username: 'ops', password: 's3cret-pass' };
const basic = (u: string, p: string): string => `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`;
const GOOD = basic(AUTH.username, AUTH.password);
const ADD = '/admin/queues/api/queues/prospect-sync/add';
const JOB = JSON.stringify({ name: 'sync', data: { search: 'dach' } });

describe('dashboard: no open door', () => {
  const closers = closeAfterEach();

  async function serve(extra: Partial<DashboardOptions> = {}) {
    const env = await queueEnv('dashboard-safety');
    const queues = openQueues(env.ctx);
    closers.push(env.cleanup, queues.close);
    const server = await startDashboardServer({
      queues: [queues.sync, queues.tick],
      redis: env.ctx.connection,
      prefix: env.ctx.prefix,
      port: 0,
      auth: AUTH,
      logger: silentLogger,
      searches: () => [{ name: 'dach', destination: 'crm' } as SavedSearch],
      ...extra,
    });
    closers.push(server.close);
    const url = `http://127.0.0.1:${server.port}`;
    return { queues, server, url, origin: url };
  }

  it(
    'a cross-site text/plain POST riding cached basic auth queues nothing (read-only board, and refused as ' +
      'cross-site)',
    async () => {
      const { queues, url } = await serve();
      const crossSite = await rawRequest(`${url}${ADD}`, {
        method: 'POST',
        body: JOB,
        headers: {
          authorization: GOOD,
          'content-type': 'text/plain',
          origin: 'https://evil.example',
          'sec-fetch-site': 'cross-site',
        },
      });
      expect(crossSite.status).toBe(403);
      expect(crossSite.body).toMatch(/cross-site/);
      // Even same-origin JSON cannot change anything while the board is read-only (the default).
      const sameOrigin = await rawRequest(`${url}${ADD}`, {
        method: 'POST',
        body: JOB,
        headers: {
          authorization: GOOD,
          'content-type': 'application/json',
          origin: url,
          'sec-fetch-site': 'same-origin',
        },
      });
      expect(sameOrigin.status).toBe(405);
      expect(sameOrigin.body).toMatch(/read-only/);
      const pause = await rawRequest(`${url}/admin/queues/api/queues/pause`, {
        method: 'PUT',
        headers: { authorization: GOOD, origin: url },
      });
      expect(pause.status).toBe(405);
      expect(await queues.sync.count()).toBe(0);
      expect(await queues.tick.isPaused()).toBe(false);
      const listed = JSON.parse(
        (await rawRequest(`${url}/admin/queues/api/queues`, { headers: { authorization: GOOD } })).body,
      ) as { queues: { readOnlyMode: boolean }[] };
      expect(listed.queues.map((q) => q.readOnlyMode)).toEqual([true, true]);
    },
  );

  it('with server.adminActions the board acts, but only on same-origin requests with a JSON body', async () => {
    const { queues, url } = await serve({ adminActions: true });
    const refused: Record<string, string>[] = [
      { 'content-type': 'text/plain', origin: 'https://evil.example' },
      { 'content-type': 'text/plain', origin: url },
      { 'content-type': 'application/x-www-form-urlencoded', origin: url },
      { 'content-type': 'application/json', origin: 'https://evil.example' },
      { 'content-type': 'application/json', origin: 'null' },
      { 'content-type': 'application/json', 'sec-fetch-site': 'cross-site' },
      { 'content-type': 'application/json', 'sec-fetch-site': 'same-site', origin: 'http://other.localhost' },
    ];
    for (const headers of refused) {
      const res = await rawRequest(`${url}${ADD}`, {
        method: 'POST',
        body: JOB,
        headers: { authorization: GOOD, ...headers },
      });
      expect([headers, res.status]).toEqual([
        headers,
        headers['content-type'] === 'application/json' ? 403 : headers.origin === url ? 415 : 403,
      ]);
    }
    expect(await queues.sync.count()).toBe(0);

    const added = await rawRequest(`${url}${ADD}`, {
      method: 'POST',
      body: JOB,
      headers: {
        authorization: GOOD,
        'content-type': 'application/json; charset=utf-8',
        origin: url,
        'sec-fetch-site': 'same-origin',
      },
    });
    expect(added.status).toBe(200);
    expect(await queues.sync.count()).toBe(1);
    // bull-board's own UI sends its bodyless actions (pause, retry, clean) without a content type.
    const pause = await rawRequest(`${url}/admin/queues/api/queues/prospect-sync-ticks/pause`, {
      method: 'PUT',
      headers: { authorization: GOOD, origin: url, 'sec-fetch-site': 'same-origin' },
    });
    expect(pause.status).toBe(200);
    expect(await queues.tick.isPaused()).toBe(true);
    // Scripts (no Origin, no Sec-Fetch-Site: not a browser) may act with a JSON body.
    const script = await rawRequest(`${url}/admin/queues/api/queues/prospect-sync-ticks/resume`, {
      method: 'PUT',
      body: '{}',
      headers: { authorization: GOOD, 'content-type': 'application/json' },
    });
    expect(script.status).toBe(200);
    expect(await queues.tick.isPaused()).toBe(false);
  });

  it('without auth (loopback) only loopback Host headers are served: DNS rebinding gets 421', async () => {
    const { queues, url, server } = await serve({ auth: undefined, adminActions: true });
    for (const host of [
      'rebind.attacker.example',
      `rebind.attacker.example:${server.port}`,
      '127.0.0.1.nip.io',
      'localhost.attacker.example',
    ]) {
      const page = await rawRequest(`${url}/runs`, { headers: { host } });
      expect([host, page.status]).toEqual([host, 421]);
      const metrics = await rawRequest(`${url}/metrics`, { headers: { host } });
      expect([host, metrics.status]).toEqual([host, 421]);
    }
    const pause = await rawRequest(`${url}/admin/queues/api/queues/pause`, {
      method: 'PUT',
      headers: { host: 'rebind.attacker.example', origin: 'http://rebind.attacker.example' },
    });
    expect(pause.status).toBe(421);
    expect(await queues.tick.isPaused()).toBe(false);
    for (const host of [
      `localhost:${server.port}`,
      'localhost',
      `127.0.0.1:${server.port}`,
      `[::1]:${server.port}`,
      'LOCALHOST',
    ]) {
      const res = await rawRequest(`${url}/runs`, { headers: { host } });
      expect([host, res.status]).toEqual([host, 200]);
    }
  });

  it('/metrics needs the credentials whenever auth is set, unless the user opts out', async () => {
    const off = await serve({ host: '0.0.0.0' });
    expect((await rawRequest(`${off.url}/metrics`)).status).toBe(401);
    const authed = await rawRequest(`${off.url}/metrics`, { headers: { authorization: GOOD } });
    expect(authed.status).toBe(200);
    expect(authed.body).toContain('prospect_sync_redis_up 1');
    const optedOut = await serve({ host: '0.0.0.0', metricsAuth: false });
    expect((await rawRequest(`${optedOut.url}/metrics`)).status).toBe(200);
    // Bound to loopback behind a same-host proxy: what the proxy passes on is not local.
    const loopback = await serve();
    for (const headers of [
      { host: 'sync.example.com', 'x-forwarded-for': '203.0.113.9' },
      { host: 'sync.example.com' },
      { host: `127.0.0.1:${loopback.server.port}`, 'x-real-ip': '203.0.113.9' },
      { host: 'localhost', forwarded: 'for=203.0.113.9;proto=https' },
      {},
    ] as Record<string, string>[]) {
      const res = await rawRequest(`${loopback.url}/metrics`, { headers });
      expect([headers, res.status, res.body]).toEqual([headers, 401, 'authentication required\n']);
    }
    const scraped = await rawRequest(`${loopback.url}/metrics`, {
      headers: { host: 'sync.example.com', 'x-forwarded-for': '203.0.113.9', authorization: GOOD },
    });
    expect(scraped.status).toBe(200);
    const localOptOut = await serve({ metricsAuth: false });
    expect((await rawRequest(`${localOptOut.url}/metrics`)).status).toBe(200);
  });

  it('without auth a request that came through a proxy is refused, whatever Host it names', async () => {
    const { url, server } = await serve({ auth: undefined });
    for (const headers of [
      { host: `127.0.0.1:${server.port}`, 'x-forwarded-for': '203.0.113.9' },
      { host: 'localhost', forwarded: 'for=203.0.113.9' },
      { host: 'localhost', 'x-real-ip': '203.0.113.9' },
      { host: 'localhost', 'x-forwarded-host': 'sync.example.com' },
    ] as Record<string, string>[]) {
      for (const path of ['/metrics', '/runs']) {
        const res = await rawRequest(`${url}${path}`, { headers });
        expect([headers, path, res.status]).toEqual([headers, path, 403]);
        expect(res.body).toMatch(/came through a proxy .* set server\.auth/);
      }
    }
    expect((await rawRequest(`${url}/metrics`, { headers: { host: 'localhost' } })).status).toBe(200);
  });

  it('every answer carries the security headers; data pages are not cached', async () => {
    const { url } = await serve();
    for (const [path, auth] of [
      ['/runs', GOOD],
      ['/api/runs/dach', GOOD],
      ['/rejects/dach', GOOD],
      ['/admin/queues', GOOD],
      ['/runs', ''],
      ['/metrics', ''],
      ['/healthz', ''],
    ] as const) {
      const res = await rawRequest(`${url}${path}`, { headers: auth ? { authorization: auth } : {} });
      expect([path, res.status < 500]).toEqual([path, true]);
      const csp = String(res.headers['content-security-policy']);
      expect([path, csp]).toEqual([path, expect.stringContaining("frame-ancestors 'none'")]);
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("script-src 'self'");
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['referrer-policy']).toBe('no-referrer');
      expect([path, res.headers['cache-control']]).toEqual([path, 'no-store']);
    }
  });

  it('throttles failed logins per client: 429 with Retry-After, while another client still logs in', async () => {
    const { url } = await serve({ loginThrottle: { maxFailures: 3, windowMs: 60_000 } });
    const wrong = { authorization: basic(AUTH.username, 'guess') };
    for (let i = 0; i < 3; i++) expect((await rawRequest(`${url}/runs`, { headers: wrong })).status).toBe(401);
    const blocked = await rawRequest(`${url}/runs`, { headers: wrong });
    expect(blocked.status).toBe(429);
    const retryAfter = Number(blocked.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // The throttled client cannot try the right password either (that is the point) ...
    expect((await rawRequest(`${url}/runs`, { headers: { authorization: GOOD } })).status).toBe(429);
    // ... but another client logs in, and its own failures count for it alone.
    expect(
      (await rawRequest(`${url}/runs`, { headers: { authorization: GOOD }, localAddress: '127.0.0.2' })).status,
    ).toBe(200);
    expect((await rawRequest(`${url}/runs`, { headers: wrong, localAddress: '127.0.0.3' })).status).toBe(401);
    // Requests without credentials (a browser's first request) are challenged, not counted.
    for (let i = 0; i < 5; i++)
      expect((await rawRequest(`${url}/runs`, { localAddress: '127.0.0.4' })).status).toBe(401);
    expect(
      (await rawRequest(`${url}/runs`, { headers: { authorization: GOOD }, localAddress: '127.0.0.4' })).status,
    ).toBe(200);
  });

  it('malformed paths answer 400 without a stack trace and without an error-level log', async () => {
    const chunks: string[] = [];
    const logger = createLogger(
      { level: 'debug' },
      new Writable({
        write(c: Buffer, _e, done) {
          chunks.push(c.toString());
          done();
        },
      }),
    );
    const { url } = await serve({ logger });
    for (const path of ['/rejects/%ZZ', '/runs/%ZZ', '/api/runs/%E0%A4%A', '/rejects/%ZZ.csv']) {
      const res = await rawRequest(`${url}${path}`, { headers: { authorization: GOOD } });
      expect([path, res.status]).toEqual([path, 400]);
      expect(res.body).not.toMatch(/URIError|\n\s+at |node_modules/);
    }
    const levels = chunks
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((l) => (JSON.parse(l) as { level: number }).level);
    expect(levels.filter((l) => l >= 50)).toEqual([]);
  });

  // Without a browser (the browser test is skipped where Chromium is missing): the double-submit check itself.
  it('"Run now" queues only when the form carries the cookie\'s own CSRF token (HTTP, no browser)', async () => {
    const { queues, url } = await serve({ adminActions: true });
    const view = await rawRequest(`${url}/runs/dach`, { headers: { authorization: GOOD, accept: 'text/html' } });
    const cookie = String(view.headers['set-cookie']).split(';')[0]!;
    const token = /name="csrf" value="([0-9a-f]{64})"/.exec(view.body)?.[1];
    expect(cookie).toBe(`ps_csrf=${token}`);
    const post = (headers: Record<string, string>, csrf: string) =>
      rawRequest(`${url}/runs/dach/run`, {
        method: 'POST',
        body: `csrf=${csrf}`,
        headers: {
          authorization: GOOD,
          'content-type': 'application/x-www-form-urlencoded',
          origin: url,
          'sec-fetch-site': 'same-origin',
          ...headers,
        },
      });
    const other = token!.replace(/^./, (c) => (c === 'a' ? 'b' : 'a'));
    for (const [headers, csrf] of [
      [{}, token!],
      [{ cookie }, other],
      [{ cookie }, ''],
      [{ cookie }, token!.slice(1)],
      [{ cookie: `ps_csrf=${other}` }, token!],
    ] as const) {
      const res = await post(headers, csrf);
      expect([headers, csrf, res.status]).toEqual([headers, csrf, 403]);
      expect(res.body).toMatch(/CSRF token is missing or stale/);
    }
    expect(await queues.sync.count()).toBe(0);
    const ok = await post({ cookie }, token!);
    expect(ok.status).toBe(202);
    expect(await queues.sync.count()).toBe(1);
  });
});
