import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { CrmRecord } from './crm-sink.js';

/**
 * Remembers, per destination and object, a hash of the values last accepted by the CRM for each match key, so a
 * record whose mapped values did not change is not sent again. Only hashes are stored: no values, no contact details.
 */
export interface ChangeDetector {
  /** Keys whose current hash equals the stored one. */
  unchanged(records: CrmRecord[]): Promise<Set<string>>;
  /** Called only after the CRM accepted these records. */
  remember(records: CrmRecord[]): Promise<void>;
  /** Called for rejected records so they are sent again next run whatever their values. */
  forget(keys: string[]): Promise<void>;
}

export function recordHash(record: CrmRecord): string {
  const fields = Object.keys(record.properties).sort();
  const canonical = JSON.stringify([fields.map((f) => [f, record.properties[f]]), record.companyKey ?? null]);
  return createHash('sha256').update(canonical).digest('base64url').slice(0, 22);
}

export function changeHashKey(keyPrefix: string, destination: string, object: string): string {
  return `${keyPrefix}:crm:hash:${destination}:${object}`;
}

const CHUNK = 1000;

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

export function createChangeDetector(redis: Redis, keyPrefix: string, destination: string, object: string): ChangeDetector {
  const key = changeHashKey(keyPrefix, destination, object);
  return {
    async unchanged(records) {
      const same = new Set<string>();
      for (const part of chunks(records, CHUNK)) {
        const stored = await redis.hmget(key, ...part.map((r) => r.key));
        part.forEach((r, i) => {
          if (stored[i] === recordHash(r)) same.add(r.key);
        });
      }
      return same;
    },
    async remember(records) {
      for (const part of chunks(records, CHUNK)) {
        if (part.length > 0) await redis.hset(key, Object.fromEntries(part.map((r) => [r.key, recordHash(r)])));
      }
    },
    async forget(keys) {
      for (const part of chunks(keys, CHUNK)) if (part.length > 0) await redis.hdel(key, ...part);
    },
  };
}
