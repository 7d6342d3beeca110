import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpTransport } from '../../src/source/http-transport.js';
import { NextCursorError, SourceProtocolError, type JourneyCheckpoint } from '../../src/source/index.js';
import { ids, sourceFixture, type SourceFixture } from './source-fixture.js';

let fx: SourceFixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

const filter = { company: { headcount: { gte: 5 } } };

/** Walks a journey, keeping each page's checkpoint cursor, until it ends or throws. */
async function walkCheckpoints(
  f: SourceFixture,
  runId: string,
): Promise<{ records: unknown[]; cursors: (string | null)[]; error: unknown }> {
  const records: unknown[] = [];
  const cursors: (string | null)[] = [];
  let error: unknown;
  try {
    for await (const page of f.client.journey('companies', filter, { runId, pageSize: 100 })) {
      records.push(...page.records);
      cursors.push((page.checkpoint as JourneyCheckpoint).cursor);
    }
  } catch (err) {
    error = err;
  }
  return { records, cursors, error };
}

describe('bounded API answers', () => {
  it('a 50 MB search answer is cut off with a clear error, read no further, and nothing is emitted', async () => {
    fx = await sourceFixture();
    fx.emu.faults.set({ bentPages: { times: 1, padBytes: 50 * 1024 * 1024 } });
    const heapBefore = process.memoryUsage().heapUsed;
    const walked = await walkCheckpoints(fx, 'big');
    expect(walked.records).toHaveLength(0);
    expect(walked.error).toMatchObject({ code: 'response_too_large' });
    expect((walked.error as Error).message).toMatch(
      /the API \(POST http:\/\/127\.0\.0\.1:\d+\/companies\/filter\) sent an answer larger than 16777216 bytes/,
    );
    // Served and charged, never read: booked at its worst case, so caps hold.
    expect(fx.emu.stats('demo').tokensCharged).toBeGreaterThan(0);
    expect(fx.client.stats().tokensSpent).toBeGreaterThanOrEqual(fx.emu.stats('demo').tokensCharged);
    // Bounded: far less than the 50 MB (twice over as a JS string) were held.
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(40 * 1024 * 1024);
  });

  it.each([
    ['longer than 200 characters', 'A'.repeat(10 * 1024)],
    ['not base64url', 'abc+/def.ghi'],
  ])(
    'a nextCursor %s restarts the journey once and is never checkpointed; twice fails the walk',
    async (_what, cursor) => {
      fx = await sourceFixture();
      const total = await fx.client.count('companies', filter);
      fx.emu.faults.set({ bentPages: { times: 1, nextCursor: cursor } });
      const once = await walkCheckpoints(fx, 'once');
      expect(once.error).toBeUndefined();
      expect(new Set(ids(once.records)).size).toBe(total);
      expect(once.cursors).not.toContain(cursor);
      expect(fx.client.stats().journeyRestarts).toBe(1);

      fx.emu.faults.set({ bentPages: { times: 2, nextCursor: cursor } });
      const twice = await walkCheckpoints(fx, 'twice');
      expect(twice.error).toBeInstanceOf(NextCursorError);
      expect(twice.error).toBeInstanceOf(SourceProtocolError);
      expect(twice.cursors).not.toContain(cursor);
      expect((twice.error as Error).message).not.toContain(cursor.slice(0, 20));
    },
  );

  it('a non-JSON answer names its status and content type, never its text', async () => {
    const server = createServer((req, res) => {
      const status = req.url === '/ok' ? 200 : 502;
      res
        .writeHead(status, { 'content-type': 'text/html; charset=utf-8' })
        .end('<html>body-text jane.doe@example.com</html>');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const http = new HttpTransport(5000, 2);
    try {
      const error = await http
        .send({ method: 'GET', url: new URL(`${base}/ok`), headers: {} })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SourceProtocolError);
      expect((error as Error).message).toBe('expected a JSON body, got text/html (43 bytes, HTTP 200)');
      const failed = await http.send({ method: 'GET', url: new URL(`${base}/bad`), headers: {} });
      expect(failed).toMatchObject({ status: 502, body: null });
    } finally {
      await http.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
