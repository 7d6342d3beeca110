/**
 * Bounded Salesforce answers: a token endpoint (or any Salesforce URL) that streams more than the worker reads is cut
 * off with `response_too_large`, not buffered, and never an unhandled stream error. A raw server stands in for the
 * misbehaving org: no faithful Salesforce sends this.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SalesforceSink } from '../../../src/crm/salesforce/salesforce-sink.js';
import { MAX_SALESFORCE_ANSWER_BYTES } from '../../../src/crm/salesforce/salesforce-transport.js';
import { floodServer } from '../../helpers/flood-server.js';
import { CLIENT } from './sf-fixture.js';

let server: Awaited<ReturnType<typeof floodServer>> | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});
const flood = async (bytes: number, announced: boolean) => (server = await floodServer(bytes, announced));

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
