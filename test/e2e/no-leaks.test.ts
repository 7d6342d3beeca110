/**
 * The promise "secrets and contact details never appear in logs, job data, Redis or errors", checked end to end: a
 * run that reveals contacts (allowlisted segment) with some records rejected by the CRM, logging at `trace` through
 * the product's logger, then a queued run through BullMQ; every Redis key the runs left and every log line are
 * searched for the emails, phone numbers and secrets involved.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSyncProcessor, syncSearch } from '../../jobs/sync-search.js';
import { enqueueRun, openQueues, startSyncWorker } from '../../src/queue/index.js';
import { createLogger } from '../../src/shared/logger.js';
import { createRedis } from '../../src/shared/redis.js';
import { openSource } from '../../jobs/sync-search/open-source.js';
import {
  HUBSPOT_TOKEN,
  WORKER_ACCOUNT,
  hubspotConfig,
  hubspotValues,
  startFixture,
  type Fixture,
} from '../jobs/sync-fixture.js';

const SEARCH = `
  - name: revealed
    segment: key-accounts
    entity: persons
    filter: {company: {headcount: {gte: 1, lte: 40}}}
    view: [contacts, demographics]
    destination: crm
    object: contacts
    matchOn: {field: prospect_sync_id, from: id}
    fields: {email: contacts.email, phone: contacts.phone, mobilephone: contacts.mobile, firstname: firstName}
`;

let fx: Fixture;
beforeAll(async () => {
  fx = await startFixture('no-leaks');
});
afterAll(async () => fx.close());

/** Every value stored under the prefix, whatever the key type, as one text. */
async function dumpRedis(prefix: string): Promise<string> {
  const redis = fx.redis;
  const parts: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
    cursor = next;
    for (const key of keys) {
      const type = await redis.type(key);
      parts.push(key);
      if (type === 'string') parts.push((await redis.getBuffer(key))?.toString('latin1') ?? '');
      else if (type === 'hash') parts.push(JSON.stringify(await redis.hgetall(key)));
      else if (type === 'list') parts.push(JSON.stringify(await redis.lrange(key, 0, -1)));
      else if (type === 'set') parts.push(JSON.stringify(await redis.smembers(key)));
      else if (type === 'zset') parts.push(JSON.stringify(await redis.zrange(key, '0', '-1')));
      else if (type === 'stream') parts.push(JSON.stringify(await redis.xrange(key, '-', '+')));
    }
  } while (cursor !== '0');
  return parts.join('\n');
}

function capture(): { lines: string[]; stream: Writable } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { lines, stream };
}

describe('no secrets or contact details leak', () => {
  it('a contacts-revealing run with CRM rejects leaves none in logs, Redis, run history or the summary', async () => {
    const config = fx.config(hubspotConfig(SEARCH, '  credits: {maxPerRun: 5000, maxPerDay: 5000}'));
    const expected = await fx.oracleIds('persons', { company: { headcount: { gte: 1, lte: 40 } } });
    expect(expected.length).toBeGreaterThan(20);

    // A first run lands the contacts; we learn their contact details from the CRM, not from our code.
    const quiet = capture();
    const first = await syncSearch(
      { ...fx.deps(config), logger: createLogger({ level: 'trace' }, quiet.stream) },
      { search: 'revealed', runId: 'leak-1' },
    );
    expect(first).toMatchObject({ status: 'completed', created: expected.length });
    const emails = hubspotValues(fx.hubspot!, 'contacts', 'email').filter(Boolean);
    const phones = [
      ...hubspotValues(fx.hubspot!, 'contacts', 'phone'),
      ...hubspotValues(fx.hubspot!, 'contacts', 'mobilephone'),
    ].filter(Boolean);
    expect(emails).toHaveLength(expected.length);
    expect(phones.length).toBeGreaterThan(expected.length);

    // Second run: HubSpot rejects three contacts by their email, quoting it in its error; a full resync sends all.
    // Contacts are revealed once: their reveals are made stale so this run carries the contact details again.
    const source = openSource(config, fx.redis, fx.prefix, createLogger({ level: 'silent' }, quiet.stream));
    await source.markRevealed(expected, Date.now() - 400 * 86_400_000).finally(() => source.close());
    const rejectedEmails = emails.slice(0, 3);
    fx.hubspot!.faults.reject = { values: new Set(rejectedEmails), mode: 'record' };
    const log = capture();
    const logger = createLogger({ level: 'trace' }, log.stream);
    const second = await syncSearch(
      { ...fx.deps(config), logger },
      { search: 'revealed', runId: 'leak-2', fullResync: true },
    );
    expect(second).toMatchObject({ status: 'completed', rejected: 3 });

    // Third, through the queue: job data and BullMQ's keys are covered too.
    const connection = createRedis(process.env.REDIS_URL);
    const ctx = { connection, prefix: fx.prefix };
    const queues = openQueues(ctx);
    const worker = startSyncWorker({ ctx, processor: createSyncProcessor({ ...fx.deps(config), logger }), logger });
    try {
      const { jobId } = await enqueueRun(queues.sync, 'revealed', 'manual', { fullResync: true });
      let state = '';
      for (let waited = 0; waited < 60_000 && state !== 'completed' && state !== 'failed'; waited += 100) {
        await new Promise((r) => setTimeout(r, 100));
        state = (await queues.sync.getJobState(jobId)) as string;
      }
      expect(state).toBe('completed');
    } finally {
      await worker.shutdown(5_000);
      await queues.close();
      connection.disconnect();
    }

    const stored = await dumpRedis(fx.prefix);
    const logged = [...quiet.lines, ...log.lines].join('');
    expect(logged.length).toBeGreaterThan(0);
    expect(stored).toContain('revealed'); // the dump is real: run history, rejects and jobs are there
    const everywhere = { redis: stored, logs: logged, summaries: JSON.stringify([first, second]) };
    const secrets = [WORKER_ACCOUNT.clientSecret, HUBSPOT_TOKEN];
    for (const [where, text] of Object.entries(everywhere)) {
      for (const value of [...emails, ...phones, ...secrets]) {
        if (text.includes(value))
          throw new Error(`${where} contains a contact detail or secret (${value.length} chars)`);
      }
      expect(text).not.toMatch(/Bearer\s+[A-Za-z0-9._~+/-]{8,}/);
      expect(text).not.toMatch(/[\w.+-]+@[\w-]+\.[\w.-]+/);
    }
  });
});
