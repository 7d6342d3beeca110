import { hash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { chunks } from './chunks.js';
import type { CrmRecord, ObjectTarget } from './crm-sink.js';

/**
 * Remembers, per CRM instance (portal / org), destination, object, mapping field set and match key, a short hash of
 * each value last accepted by the CRM, so a record whose mapped values did not change is not sent again. Per field,
 * because a field whose source path is absent (contacts of a person revealed in an earlier run) is left out of the
 * upsert and keeps its CRM value: such a record is unchanged when every field it does carry is unchanged, and its
 * stored hashes for the absent fields stay. So runs with and without contacts do not thrash. Only hashes are
 * stored: no values, no contact details.
 */
export interface ChangeDetector {
  /** Keys whose current values equal the stored ones (fields absent from a record are not compared). */
  unchanged(records: CrmRecord[]): Promise<Set<string>>;
  /** Called only after the CRM accepted these records. */
  remember(records: CrmRecord[]): Promise<void>;
  /** Called for rejected records so they are sent again next run whatever their values. */
  forget(keys: string[]): Promise<void>;
}

/** Hashes of a field set nobody wrote for this long vanish (every read or write renews them): 90 days. */
export const CHANGE_HASH_TTL_SECONDS = 90 * 24 * 3600;

// One-shot `hash` (same bytes as createHash().update().digest()): no Hash object per value, ~3x cheaper on short input.
const digest = (value: unknown): string => hash('sha256', JSON.stringify(value), 'base64url').slice(0, 22);

/** 36 bits per field: a missed change needs two values of one field of one record to collide. */
const FIELD_HASH = 6;
const ABSENT = '~'.repeat(FIELD_HASH);
const VERSION = '2';

const fieldHash = (value: unknown): string => hash('sha256', JSON.stringify(value ?? null), 'base64url').slice(0, FIELD_HASH);

/** Hash of every mapped value of a record and its company link (whole-record form, kept for callers and tests). */
export function recordHash(record: CrmRecord): string {
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

/**
 * `instance` is the CRM's own identity (HubSpot portal id, Salesforce org id): pointing a destination at another
 * portal or a restored org finds no hashes and sends everything.
 */
export function changeHashKey(keyPrefix: string, destination: string, target: ObjectTarget, instance = 'default'): string {
  return `${keyPrefix}:crm:hash:${destination}:${instance}:${target.object}:${mappingFingerprint(target)}`;
}

/** A record's company-link hash and per-field hashes (undefined: the record lacks the field). */
interface RecordHashes {
  company: string;
  fields: (string | undefined)[];
  /** Stored field hashes as `unchanged` read them (null: none), so `remember` need not read them again. */
  stored?: string[] | null;
}

/** Reads renew a key's expiry at most this often per process (writes always do): 90 days, renewed hourly. */
const RENEW_ON_READ_MS = 3600_000;
const renewedAt = new Map<string, number>();

function hashesOf(fields: readonly string[], record: CrmRecord): RecordHashes {
  return {
    company: fieldHash(record.companyKey ?? null),
    fields: fields.map((f) => (Object.hasOwn(record.properties, f) ? fieldHash(record.properties[f]) : undefined)),
  };
}

/** Stored form: version, company-link hash, then one hash per mapped field in sorted order (ABSENT when unknown). */
function encode(hashes: RecordHashes, previous: string[] | null): string {
  const parts = hashes.fields.map((h, i) => h ?? previous?.[i] ?? ABSENT);
  return VERSION + hashes.company + parts.join('');
}

/** Field hashes of a stored value, or null when absent or of an older form (then the record counts as changed). */
function decode(fields: readonly string[], stored: string | null): { company: string; fields: string[] } | null {
  if (stored === null || stored[0] !== VERSION || stored.length !== 1 + FIELD_HASH * (fields.length + 1)) return null;
  const at = (i: number): string => stored.slice(1 + FIELD_HASH * i, 1 + FIELD_HASH * (i + 1));
  return { company: at(0), fields: fields.map((_, i) => at(i + 1)) };
}

const CHUNK = 1000;

export function createChangeDetector(redis: Redis, keyPrefix: string, destination: string, target: ObjectTarget, instance?: string): ChangeDetector {
  const key = changeHashKey(keyPrefix, destination, target, instance);
  const fields = [...target.fields].sort();
  // A record checked by `unchanged` and then accepted is hashed once: `remember` gets the same record objects.
  const known = new WeakMap<CrmRecord, RecordHashes>();
  const hashed = (record: CrmRecord): RecordHashes => {
    let h = known.get(record);
    if (h === undefined) {
      h = hashesOf(fields, record);
      known.set(record, h);
    }
    return h;
  };
  const read = async (keys: string[]): Promise<(string | null)[]> => {
    const now = Date.now();
    if (now - (renewedAt.get(key) ?? Number.NEGATIVE_INFINITY) < RENEW_ON_READ_MS) return redis.hmget(key, ...keys);
    const [[err, stored]] = (await redis.multi().hmget(key, ...keys).expire(key, CHANGE_HASH_TTL_SECONDS).exec()) as [[Error | null, (string | null)[]]];
    if (err !== null) throw err;
    renewedAt.set(key, now);
    return stored;
  };
  return {
    async unchanged(records) {
      const same = new Set<string>();
      for (const part of chunks(records, CHUNK)) {
        const stored = await read(part.map((r) => r.key));
        part.forEach((r, i) => {
          const old = decode(fields, stored[i] ?? null);
          const now = hashed(r);
          now.stored = old?.fields ?? null;
          if (old === null) return;
          if (old.company !== now.company) return;
          const changed = now.fields.some((h, j) => h !== undefined && old.fields[j] !== h);
          if (!changed) same.add(r.key);
        });
      }
      return same;
    },
    async remember(records) {
      for (const part of chunks(records, CHUNK)) {
        // Fields a record lacks keep their stored hash (the CRM kept their value).
        // (read by `unchanged` just before, or read now).
        const partial = part.filter((r) => hashed(r).stored === undefined && fields.some((f) => !Object.hasOwn(r.properties, f)));
        const stored = partial.length > 0 ? await read(partial.map((r) => r.key)) : [];
        const previous = new Map(partial.map((r, i) => [r.key, decode(fields, stored[i] ?? null)?.fields ?? null]));
        // Flat field/value pairs: an object keyed by record ids would be built in dictionary mode, then walked again.
        const pairs: string[] = [];
        for (const r of part) {
          const h = hashed(r);
          pairs.push(r.key, encode(h, h.stored ?? previous.get(r.key) ?? null));
        }
        await redis.multi().hset(key, ...pairs).expire(key, CHANGE_HASH_TTL_SECONDS).exec();
        renewedAt.set(key, Date.now());
      }
    },
    async forget(keys) {
      for (const part of chunks(keys, CHUNK)) await redis.hdel(key, ...part);
    },
  };
}
