/**
 * Bounded Salesforce answers: a token endpoint (or any Salesforce URL) that streams more than the worker reads is cut
 * off with `response_too_large`, not buffered, and never an unhandled stream error. A raw server stands in for the
 * misbehaving org: no faithful Salesforce sends this.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { SalesforceSink } from '../../../src/crm/salesforce/salesforce-sink.js';
import { MAX_SALESFORCE_ANSWER_BYTES } from '../../../src/crm/salesforce/salesforce-transport.js';
import { CLIENT } from './sf-fixture.js';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

/** Answers every request 200 with `bytes` of JSON-looking filler, chunked (no Content-Length) or announced. */
async function flood(bytes: number, announced: boolean): Promise<{ url: string; sent: () => number }> {
  let sent = 0;
  server = createServer((req, res) => {
    req.resume();
    res.writeHead(200, {
      'content-type': 'application/json',
      ...(announced ? { 'content-length': String(bytes) } : {}),
    });
    const chunk = Buffer.alloc(1024 * 1024, 'x');
    const pump = (): void => {
      while (sent < bytes && !res.destroyed) {
        sent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      res.end();
    };
    pump();
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, sent: () => sent };
}

describe('bounded Salesforce answers', () => {
  it.each([
    ['chunked', false],
    ['announced by Content-Length', true],
  ] as const)('a login answer past 64 MiB (%s) fails response_too_large, unread', async (_what, announced) => {
    const org = await flood(MAX_SALESFORCE_ANSWER_BYTES + 16 * 1024 * 1024, announced);
    const sink = new SalesforceSink({
      loginUrl: org.url,
      ...CLIENT,
      retry: { attempts: 2, baseDelayMs: 5, maxDelayMs: 10 },
      requestTimeoutMs: 20_000,
    });
    const error = await sink.identity().catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'response_too_large',
      message: 'Salesforce sent an answer larger than 67108864 bytes; it was not read',
    });
    // Not retried, and the server was cut off before it could send the whole answer.
    expect(org.sent()).toBeLessThan(MAX_SALESFORCE_ANSWER_BYTES + 16 * 1024 * 1024);
  });
});
