/**
 * Bounded HubSpot answers (issue 33, item 5): a portal URL that streams more than the worker reads is cut off with
 * `response_too_large`, not buffered. A raw server stands in for the misbehaving remote.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createHubSpotSink } from '../../../src/crm/index.js';
import { MAX_HUBSPOT_ANSWER_BYTES } from '../../../src/crm/hubspot/hubspot-json-request.js';
import { floodServer } from '../../helpers/flood-server.js';
import { testRedis } from '../../helpers/redis.js';

let closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers) await close();
  closers = [];
});

describe('bounded HubSpot answers', () => {
  it.each([
    ['chunked', false],
    ['announced by Content-Length', true],
  ] as const)('a batch upsert answer past 16 MiB (%s) fails response_too_large, unread', async (_what, announced) => {
    const portal = await floodServer(MAX_HUBSPOT_ANSWER_BYTES + 16 * 1024 * 1024, announced);
    const r = await testRedis('hubspot-bounds');
    closers.push(portal.close, r.cleanup);
    const sink = createHubSpotSink({
      accessToken: 'token',
      baseUrl: portal.url,
      redis: r.redis,
      keyPrefix: r.prefix,
      retry: { baseDelayMs: 5 },
    });
    closers.push(() => sink.close());
    const target = { object: 'companies', matchField: 'prospect_sync_id', fields: ['name'] };
    const error = await sink.upsert(target, [{ key: 'k1', properties: { name: 'Acme' } }]).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'response_too_large',
      message: `HubSpot sent an answer larger than ${MAX_HUBSPOT_ANSWER_BYTES} bytes; it was not read`,
    });
    expect(portal.sent()).toBeLessThan(MAX_HUBSPOT_ANSWER_BYTES + 16 * 1024 * 1024);
  });
});
