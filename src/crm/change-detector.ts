import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { chunks } from './chunks.js';
import type { CrmRecord, ObjectTarget } from './crm-sink.js';

/**
 * Remembers, per destination, object, mapping field set and match key, a hash of the values last accepted by the
 * CRM, so a record whose mapped values did not change is not sent again. Only hashes are stored: no values, no
 * contact details.
 */
export interface ChangeDetector {
  /** Keys whose current hash equals the stored one. */
  unchanged(records: CrmRecord[]): Promise<Set<string>>;
  /** Called only after the CRM accepted these records. */
  remember(records: CrmRecord[]): Promise<void>;
  /** Called for rejected records so they are sent again next run whatever their values. */
  forget(keys: string[]): Promise<void>;
}

/** Hashes of a field set nobody wrote for this long vanish (every read or write renews them): 90 days. */
export const CHANGE_HASH_TTL_SECONDS = 90 * 24 * 3600;

const digest = (value: unknown): string => createHash('sha256').update(JSON.stringify(value)).digest('base64url').slice(0, 22);

function recordHash(record: CrmRecord): string {
  const fields = Object.keys(record.properties).sort();
  return digest([fields.map((f) => [f, record.properties[f]]), record.companyKey ?? null]);
}

/**
 * What a mapping writes to its object: match field, field set, company link. Two searches mapping different field
 * sets onto one object get separate hashes, so neither sees the other's writes as changes to send again.
 */
function mappingFingerprint(target: ObjectTarget): string {
  return digest([target.matchField, [...target.fields].sort(), target.associate ?? null]).slice(0, 12);
}

export function changeHashKey(keyPrefix: string, destination: string, target: ObjectTarget): string {
  return `${keyPrefix}:crm:hash:${destination}:${target.object}:${mappingFingerprint(target)}`;
}

const CHUNK = 1000;

export function createChangeDetector(redis: Redis, keyPrefix: string, destination: string, target: ObjectTarget): ChangeDetector {
  const key = changeHashKey(keyPrefix, destination, target);
  return {
    async unchanged(records) {
      const same = new Set<string>();
      for (const part of chunks(records, CHUNK)) {
        const [[err, stored]] = (await redis.multi().hmget(key, ...part.map((r) => r.key)).expire(key, CHANGE_HASH_TTL_SECONDS).exec()) as [[Error | null, (string | null)[]]];
        if (err !== null) throw err;
        part.forEach((r, i) => {
          if (stored[i] === recordHash(r)) same.add(r.key);
        });
      }
      return same;
    },
    async remember(records) {
      for (const part of chunks(records, CHUNK)) {
        await redis.multi().hset(key, Object.fromEntries(part.map((r) => [r.key, recordHash(r)]))).expire(key, CHANGE_HASH_TTL_SECONDS).exec();
      }
    },
    async forget(keys) {
      for (const part of chunks(keys, CHUNK)) await redis.hdel(key, ...part);
    },
  };
}
