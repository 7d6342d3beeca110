import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { errorInfo } from '../../jobs/sync-search/run-errors.js';
import { redactReason } from '../../src/crm/reason-redaction.js';
import { createLogger } from '../../src/shared/logger.js';
import { redact } from '../../src/shared/redact.js';

/** Text with something that must never leave the process: [text, the secret or contact detail it holds]. */
const REDACTED: [string, string][] = [
  ['invalid email jane.doe@example.com on record 7', 'jane.doe@example.com'],
  ['duplicate: <Zoe.Uenal+crm@sub.acme-corp.example>', 'Zoe.Uenal+crm@sub.acme-corp.example'],
  ['phone +49 30 1234567 is invalid', '+49 30 1234567'],
  ['E.164 +4930123456 refused', '+4930123456'],
  ['call (030) 1234567 today', '(030) 1234567'],
  ['national 030-1234567', '030-1234567'],
  ['mobile 0171 2345678', '0171 2345678'],
  ['tel: 0049 30 1234567', '0049 30 1234567'],
  ['call 030 12 34 56 7 back', '030 12 34 56 7'],
  ['US +1 (415) 555-0100 ok', '+1 (415) 555-0100'],
  ['US 415-555-0100 ok', '415-555-0100'],
  ['(555) 123-4567', '123-4567'],
  ['Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl', 'eyJhbGciOiJIUzI1NiJ9'],
  ['headers {"authorization":"Bearer abc.def-123"}', 'abc.def-123'],
  ['sent Basic dXNlcjpwYXNzd29yZA== upstream', 'dXNlcjpwYXNzd29yZA=='],
  ['body client_secret=s3cr3t-Value_9&grant_type=client_credentials', 's3cr3t-Value_9'],
  ['{"access_token":"tok_123abc","expires_in":3600}', 'tok_123abc'],
  ['callback?access_token=abc.def.ghi&state=1', 'abc.def.ghi'],
  ['refresh_token: r-123-xyz', 'r-123-xyz'],
  ['password=hunter2!', 'hunter2!'],
  ['REDIS_URL=redis://SECRET@10.0.0.5/3 refused', 'SECRET'],
  ['connect redis://app:p4ssw0rd@redis.internal:6379/0', 'p4ssw0rd'],
  // bare or dotted national numbers, and North American numbers written without separators
  ['mobile 015112345678 refused', '015112345678'],
  ['4155550100', '4155550100'],
  ['invalid phone 4155550100 on record 7', '4155550100'],
  ['{"phone":"14155550100"}', '14155550100'],
  ['tel: 0049301234567', '0049301234567'],
  ['mobile 0171.2345678 wrong', '0171.2345678'],
  // emails in any script, whole
  ['bounce from jürgen.müller@bücher.de', 'müller'],
  ['duplicate JÜRGEN@example.com', 'JÜ'],
  ['Zoë.Ünal@example.de is taken', 'Zoë'],
];

/** Text that must come through unchanged, byte for byte: nothing in it is a secret or a contact detail. */
const KEPT: string[] = [
  'POST http://127.0.0.1:4199/oauth/token failed: connect ECONNREFUSED 127.0.0.1:4199',
  'connect ECONNREFUSED 10.20.30.40:6379 after 3 attempts',
  'connect ECONNREFUSED ::1:6379',
  'listening on [2001:db8::1]:8080 and [::]:4199',
  'peer fe80::1ff:fe23:4567:890a dropped',
  'budget resets at 2026-11-23T05:04:04Z',
  'window ends 2026-11-23T05:04:04.123Z',
  'window ends 2026-11-23T05:04:04+01:00 or 2026-11-23T05:04:04.123+0100',
  'logged 2026-11-23 05:04:04 UTC',
  'dates 2026-11-23, 23.11.2026 and 11/23/2026',
  'run 550e8400-e29b-41d4-a716-446655440000 stopped',
  'x-request-id: 8f14e45f-ceea-467f-a0e6-1b2c3d4e5f60',
  'request id 0123456789abcdef0123456789abcdef',
  'duplicate value found: Prospect_Sync_Id__c duplicates value on record with id: 001000000000001AAA',
  'Account 001000000000001 and 0015g00000XyZabAAF',
  'HubSpot company 12345678901 and contact 9876543210 not found',
  'HTTP 429 Too Many Requests; then 502 Bad Gateway, 402 Payment Required',
  'retried after 1500ms, 30 s, 2.5s and Retry-After: 120',
  'GET https://api.example.test:8443/v2/search?page=2&size=100 failed',
  'http://localhost:4199/crm/v3/objects/contacts/batch/upsert answered 400',
  'offset 10000 + pageSize 100 exceeds the ceiling',
  'stopped by token_reserve with 5000 tokens left (maxTokens=500, tokensLeft: 7)',
  'records 1000-2000 of 250000',
  'due 01-02-2026 or 05/11/2026; bytes=0-1023; offsets 0-100',
  'POST https://login.example.test/services/oauth2/token: 400 Bad Request',
  'Basic auth failed; Bearer token expired; HTTP Basic Auth required',
  'record id 4155550100 and object 2125550199 not found; deal #3125550100',
  'epoch 1764043200 s, 1764043200123 ms',
  'version 0.12.3, ratio 0.75, took 0.5 s',
];

describe('redact (the one redactor: logs, errors, rejects, summaries)', () => {
  it.each(REDACTED)('removes the secret or contact detail from %j', (text, secret) => {
    const out = redact(text);
    expect(out).not.toContain(secret);
    expect(out).toMatch(/\[(email|phone|secret)\]/);
  });

  it.each(KEPT)('keeps %j byte for byte', (text) => {
    expect(redact(text)).toBe(text);
  });

  it('removes values a caller knows are private (a record a CRM quotes back), longest first', () => {
    expect(redact('name Zoë Ünal / Zoë', { values: ['Zoë', 'Zoë Ünal', 'ab'] })).toBe('name [value] / [value]');
  });
});

describe('errorInfo (run summaries, history, job results)', () => {
  it.each(REDACTED)('removes the secret or contact detail from %j', (text, secret) => {
    expect(errorInfo(new Error(text)).message).not.toContain(secret);
  });

  it.each(KEPT)('keeps %j byte for byte', (text) => {
    expect(errorInfo(new Error(text)).message).toBe(text);
  });
});

describe('redactReason (stored rejects)', () => {
  it.each(REDACTED)('removes the secret or contact detail from %j', (text, secret) => {
    expect(redactReason(text)).not.toContain(secret);
  });

  it.each(KEPT)('keeps %j byte for byte', (text) => {
    expect(redactReason(text)).toBe(text);
  });
});

function capture(): { stream: Writable; lines: () => Record<string, unknown>[] } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  return {
    stream,
    lines: () =>
      chunks
        .join('')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

describe('logger', () => {
  it('redacts string values anywhere in a line (message, nested fields, arrays, errors) and keeps the rest', () => {
    const out = capture();
    const log = createLogger({ level: 'info' }, out.stream);
    log.info(
      {
        url: 'http://127.0.0.1:4199/oauth/token',
        at: '2026-11-23T05:04:04Z',
        id: '001000000000001AAA',
        count: 12345678901,
        nested: { reason: 'call +49 30 1234567', list: ['jane.doe@example.com', 'ok'] },
        err: new Error('refused jane.doe@example.com at 127.0.0.1:4199'),
        headers: { authorization: 'Bearer abc' },
      },
      'sent to %s with client_secret=%s',
      'jane.doe@example.com',
      's3cr3t',
    );
    log.warn('plain message for +1 (415) 555-0100');
    const text = JSON.stringify(out.lines());
    for (const secret of ['jane.doe', '30 1234567', 's3cr3t', '555-0100', 'Bearer abc'])
      expect(text).not.toContain(secret);
    for (const kept of [
      'http://127.0.0.1:4199/oauth/token',
      '2026-11-23T05:04:04Z',
      '001000000000001AAA',
      '12345678901',
      'at 127.0.0.1:4199',
    ]) {
      expect(text).toContain(kept);
    }
    const [first] = out.lines();
    expect((first?.err as { type?: string } | undefined)?.type).toBe('Error');
  });
});
