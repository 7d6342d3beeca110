import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  InsufficientBudgetError,
  RateLimitedError,
  SourceAbortedError,
  SourceAuthError,
  SourceNetworkError,
  SourceServerError,
  SourceValidationError,
  TokensExhaustedError,
} from '../../src/source/index.js';
import { sourceFixture, walkAll, type SourceFixture } from './source-fixture.js';

let fx: SourceFixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

describe('every error path of the API, typed, retried only where the policy says', () => {
  it('400 validation: the offending paths, no retry', async () => {
    fx = await sourceFixture();
    const error = await fx.client
      .count('companies', { company: { industry: { include: ['not_an_industry'] }, colour: 'red' } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SourceValidationError);
    const paths = (error as SourceValidationError).problems.map((p) => p.path);
    expect(paths.some((p) => p?.startsWith('company.industry.include'))).toBe(true);
    expect(fx.emu.stats().served400).toBe(1);
    expect(fx.client.stats().retries).toBe(0);
  });

  it('5xx: backoff then success; persistent 5xx surfaces after a few attempts', async () => {
    fx = await sourceFixture({}, { retry: { maxAttempts: 3, baseDelayMs: 5, maxDelayMs: 20 } });
    fx.emu.faults.set({ serverErrors: { sequence: [500, 503] } });
    expect(await fx.client.count('companies', {})).toBe(2000);
    expect(fx.client.stats().retries).toBe(2);
    fx.emu.faults.set({ serverErrors: { share: 1 } });
    const error = await fx.client.count('companies', {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SourceServerError);
    expect(fx.emu.stats().served5xx).toBe(2 + 3);
  });

  it('network errors and timeouts: backoff, then SourceNetworkError; abort: SourceAbortedError at once', async () => {
    fx = await sourceFixture({}, { requestTimeoutMs: 150, retry: { maxAttempts: 2, baseDelayMs: 5, maxDelayMs: 10 } });
    fx.emu.faults.set({ latency: { fixedMs: 400, jitterMs: 0 } });
    const timedOut = await fx.client.count('companies', {}).catch((e: unknown) => e);
    expect(timedOut).toBeInstanceOf(SourceNetworkError);
    expect(fx.client.stats().retries).toBe(1);
    fx.emu.faults.set({ latency: null });

    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const offline = fx.newClient({ baseUrl: `http://127.0.0.1:${port}`, accountKey: 'offline' });
    await expect(offline.count('companies', {})).rejects.toBeInstanceOf(SourceNetworkError);

    fx.emu.faults.set({ latency: { fixedMs: 1000, jitterMs: 0 } });
    const slow = fx.newClient({ requestTimeoutMs: 5000 });
    const controller = new AbortController();
    const t0 = Date.now();
    setTimeout(() => controller.abort(), 50);
    await expect(slow.count('companies', {}, { signal: controller.signal })).rejects.toBeInstanceOf(SourceAbortedError);
    expect(Date.now() - t0).toBeLessThan(900);
  });

  it('429: waits Retry-After and retries; gives up with a typed error after the allowed attempts', async () => {
    fx = await sourceFixture();
    fx.emu.faults.set({ force429: 2 });
    expect(await fx.client.count('companies', {})).toBe(2000);
    expect(fx.client.stats().retries).toBe(2);
    expect(fx.client.stats().throttled).toBe(2);
    expect(fx.emu.stats().served429.count).toBe(2);
    const impatient = fx.newClient({ retry: { maxRateLimitAttempts: 1 } });
    fx.emu.faults.set({ force429: 2 });
    const error = await impatient.dictionary('country').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as RateLimitedError).operation).toBe('dictionary');
    expect((error as RateLimitedError).retryAfterSeconds).toBeLessThanOrEqual(1);
  });

  it('402 exhausted surfaces with its reset time, never retried', async () => {
    fx = await sourceFixture();
    fx.emu.setTokenBalance('demo', 0, 7200);
    const error = await walkAll(fx.client, 'companies', {}, { runId: 'r' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TokensExhaustedError);
    expect((error as TokensExhaustedError).code).toBe('tokens_exhausted');
    const inSeconds = ((error as TokensExhaustedError).resetAt.getTime() - Date.now()) / 1000;
    expect(inSeconds).toBeGreaterThan(7100);
    expect(inSeconds).toBeLessThanOrEqual(7200);
    expect(fx.emu.stats().served402).toBe(1);
    expect((await fx.client.ledger.tokenBalance())?.remaining).toBe(0);
  });

  it('402 stale_reset / store_unavailable: backoff, then success or a typed error', async () => {
    fx = await sourceFixture({}, { retry: { maxAttempts: 3, baseDelayMs: 20, maxDelayMs: 40 } });
    fx.emu.faults.set({ budgetMode: { demo: 'stale_reset' } });
    const error = await walkAll(fx.client, 'companies', {}, { runId: 'r', maxRecords: 10 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InsufficientBudgetError);
    expect(error).not.toBeInstanceOf(TokensExhaustedError);
    expect((error as InsufficientBudgetError).reason).toBe('stale_reset');
    expect(fx.emu.stats().served402).toBe(3);
    fx.emu.faults.set({ budgetMode: { demo: 'store_unavailable' } });
    setTimeout(() => fx?.emu.faults.set({ budgetMode: { demo: 'normal' } }), 15);
    const records = await walkAll(fx.client, 'companies', {}, { runId: 'r2', maxRecords: 10 });
    expect(records).toHaveLength(10);
  });

  it('401: bad credentials fail clearly without leaking the secret', async () => {
    fx = await sourceFixture();
    const bad = fx.newClient({
      auth: { tokenUrl: fx.emu.tokenUrl, clientId: 'demo-client', clientSecret: 'wrong-secret-XYZ' },
      accountKey: 'bad',
    });
    const error = await bad.count('companies', {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SourceAuthError);
    expect((error as SourceAuthError).code).toBe('source_unauthorized');
    expect(JSON.stringify({ m: (error as Error).message, j: (error as SourceAuthError).toJSON() })).not.toContain(
      'wrong-secret-XYZ',
    );
  });

  it('concurrent requests share one token request; an expired token is refreshed once for all of them', async () => {
    fx = await sourceFixture();
    await Promise.all(Array.from({ length: 10 }, () => fx!.client.count('companies', {})));
    expect(fx.emu.stats().requests.token).toBe(1);
    fx.emu.expireAllTokens();
    await Promise.all(Array.from({ length: 10 }, () => fx!.client.count('companies', {})));
    expect(fx.emu.stats().requests.token).toBe(2);
    expect(fx.client.stats().requests.token).toBe(2);
  });
});

describe('401 on a freshly issued token', () => {
  it('fails at once with a clear error: the account is refused, not the token', async () => {
    // A server whose API refuses every token: a 401 on a token issued for that very request.
    let tokenCalls = 0;
    let apiCalls = 0;
    const server = createServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      if (req.url === '/oauth/token') {
        tokenCalls++;
        res.end(JSON.stringify({ access_token: `t${tokenCalls}`, token_type: 'Bearer', expires_in: 3600 }));
        return;
      }
      apiCalls++;
      res.statusCode = 401;
      res.end(JSON.stringify({ message: 'no API access on this package' }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    fx = await sourceFixture();
    const client = fx.newClient({
      baseUrl: url,
      auth: { tokenUrl: `${url}/oauth/token`, clientId: 'a', clientSecret: 'b' },
      accountKey: 'no-access',
    });
    const error = await client.count('companies', {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SourceAuthError);
    expect((error as Error).message).toMatch(/freshly issued access token/);
    expect([tokenCalls, apiCalls]).toEqual([1, 1]);
    // The refused token is dropped: the next call takes a new one, refused as fresh again.
    await expect(client.count('companies', {})).rejects.toThrow(/freshly issued/);
    server.close();
    expect([tokenCalls, apiCalls]).toEqual([2, 2]);
  });
});
