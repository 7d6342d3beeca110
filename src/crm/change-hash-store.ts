import { hash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { luaScript, runLua } from '../shared/lua-script.js';
import { CHANGE_HASH_TTL_SECONDS, type ChangeDetector } from './change-detection.js';
import { chunks } from './chunks.js';
import { eraseMembers, scanKeys, type KeyHit } from '../shared/key-erase.js';
import type { CrmRecord, ObjectTarget } from './crm-sink.js';
import { hashText } from './text-hash.js';

/**
 * The change hashes of objects a search writes that are not its own records, and the store its own records used
 * before their fingerprints (src/crm/search-change-detector.ts reads it for a record without one): per CRM instance
 * (portal / org), destination, object, mapping field set and match key, a short hash of each value last accepted by
 * the CRM, so a record whose mapped values did not change is not sent again. Per field, because a field whose source
 * path is absent (contacts of a person revealed in an earlier run) is left out of the upsert and keeps its CRM value:
 * such a record is unchanged when every field it does carry is unchanged, and its stored hashes for the absent fields
 * stay. So runs with and without contacts do not thrash.
 */
// One-shot `hash` (same bytes as createHash().update().digest()): no Hash object per value, ~3x cheaper on short input.
const digest = (value: unknown): string => hash('sha256', JSON.stringify(value), 'base64url').slice(0, 22);

/** 36 bits per field: a missed change needs two values of one field of one record to collide. */
const FIELD_HASH = 6;
const ABSENT = '~'.repeat(FIELD_HASH);
/** '3': field hashes from `fieldHash` below. '2' (before): 6 chars of base64url SHA-256, still read (see `decode`). */
const VERSION = '3';
const LEGACY_VERSION = '2';

/**
 * 36 bits of `hashText` of the value's text (a collision keeps one stale value until the field changes again, odds
 * 2^-36 per change). Strings are hashed as they are, other values as text (numbers and booleans by String, anything
 * else as JSON) with another seed.
 */
export function fieldHash(value: unknown): string {
  const text =
    typeof value === 'string'
      ? value
      : typeof value === 'number' || typeof value === 'boolean'
        ? String(value)
        : JSON.stringify(value ?? null);
  return hashText(text, typeof value === 'string' ? 0x9e3779b9 : 0x85ebca6b, FIELD_HASH);
}

/** The field hash of stored form '2', kept to compare (and upgrade) values written before form '3'. */
const legacyFieldHash = (value: unknown): string =>
  hash('sha256', JSON.stringify(value ?? null), 'base64url').slice(0, FIELD_HASH);

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
export function changeHashKey(
  keyPrefix: string,
  destination: string,
  target: ObjectTarget,
  instance = 'default',
): string {
  return `${keyPrefix}:crm:hash:${destination}:${instance}:${target.object}:${mappingFingerprint(target)}`;
}

/**
 * The keys of one change-hash store: its meta hash and its buckets' name prefix (change-hash-buckets.lua), named
 * after `legacy`, the flat hash of the layout before (drained into them): on a Redis Cluster the prefix's hash tag
 * puts them all in one slot.
 */
export function changeHashKeys(legacy: string): { legacy: string; meta: string; buckets: string } {
  return { legacy, meta: `${legacy}:meta`, buckets: `${legacy}:b:` };
}

const BUCKETS = luaScript(
  'changeHashBuckets',
  2,
  new URL('../shared/linear-buckets.lua', import.meta.url),
  new URL('./change-hash-buckets.lua', import.meta.url),
);
/** Entries of the layout before moved into the buckets by each write (one bounded step of the migration). */
const DRAIN_PER_WRITE = 250;
/** Records per script call. */
const SCRIPT_ITEMS = 250;

/** A record's company-link hash and per-field hashes (undefined: the record lacks the field). */
interface RecordHashes {
  company: string;
  fields: (string | undefined)[];
  /** Stored field hashes (current form) as `unchanged` read them (null: none), so `remember` need not read again. */
  stored?: string[] | null;
}

function hashesOf(
  fields: readonly string[],
  record: CrmRecord,
  of: (value: unknown) => string = fieldHash,
): RecordHashes {
  return {
    company: of(record.companyKey ?? null),
    fields: fields.map((f) => (Object.hasOwn(record.properties, f) ? of(record.properties[f]) : undefined)),
  };
}

/** Stored form: version, company-link hash, then one hash per mapped field in sorted order (ABSENT when unknown). */
function encode(hashes: RecordHashes, previous: string[] | null): string {
  const parts = hashes.fields.map((h, i) => h ?? previous?.[i] ?? ABSENT);
  return VERSION + hashes.company + parts.join('');
}

interface StoredHashes {
  /** Form '2' (SHA-256 field hashes): compared with `legacyFieldHash`, rewritten in the current form when possible. */
  legacy: boolean;
  company: string;
  fields: string[];
}

/**
 * Field hashes of a stored value, or null when absent or of a whole-record form (then the record counts as changed).
 */
function decode(fields: readonly string[], stored: string | null): StoredHashes | null {
  if (
    stored === null ||
    (stored[0] !== VERSION && stored[0] !== LEGACY_VERSION) ||
    stored.length !== 1 + FIELD_HASH * (fields.length + 1)
  )
    return null;
  const at = (i: number): string => stored.slice(1 + FIELD_HASH * i, 1 + FIELD_HASH * (i + 1));
  return { legacy: stored[0] === LEGACY_VERSION, company: at(0), fields: fields.map((_, i) => at(i + 1)) };
}

/** Every field the record carries hashes as stored (fields it lacks are not compared). */
function sameAs(now: RecordHashes, old: { company: string; fields: string[] }): boolean {
  return old.company === now.company && now.fields.every((h, j) => h === undefined || old.fields[j] === h);
}

const CHUNK = 1000;

/** What the store says of a record's stored hashes, in two parts: see `verdicts`. */
export interface StoredVerdict {
  /** The company link and every field but the `passedBy` ones the record carries hash as stored. */
  base: boolean;
  /** Every `passedBy` field the record carries hashes as stored. */
  passed: boolean;
}

export interface ChangeHashStore extends ChangeDetector {
  /** Whether the store holds anything (its buckets or the flat hash before them). */
  exists(): Promise<boolean>;
  /** Per record, its stored hashes compared field by field (null: none stored, or in a form that cannot be). */
  verdicts(records: CrmRecord[], passedBy: readonly string[]): Promise<(StoredVerdict | null)[]>;
}

export function createChangeHashStore(
  redis: Redis,
  keyPrefix: string,
  destination: string,
  target: ObjectTarget,
  instance?: string,
): ChangeHashStore {
  const key = changeHashKey(keyPrefix, destination, target, instance);
  const fields = [...target.fields].sort();
  // A record checked by `unchanged` and then accepted is hashed once: `remember` gets the same record objects.
  // A Map, not a WeakMap: a detector lives for one write, and weak entries cost the GC extra work per record.
  const known = new Map<CrmRecord, RecordHashes>();
  const hashed = (record: CrmRecord): RecordHashes => {
    let h = known.get(record);
    if (h === undefined) {
      h = hashesOf(fields, record);
      known.set(record, h);
    }
    return h;
  };
  const store = changeHashKeys(key);
  // A script call handles at most SCRIPT_ITEMS records: Redis is held for a few milliseconds at most.
  const call = async (op: 'get' | 'set' | 'del', drain: number, items: string[], width = 1): Promise<unknown[]> => {
    const out: unknown[] = [];
    for (const part of chunks(items, SCRIPT_ITEMS * width)) {
      const args = [op, store.buckets, CHANGE_HASH_TTL_SECONDS, drain, ...part];
      const reply = await runLua<unknown>(redis, BUCKETS, [store.meta, store.legacy], args);
      if (Array.isArray(reply)) out.push(...(reply as unknown[]));
    }
    return out;
  };
  const read = async (keys: string[]): Promise<(string | null)[]> => (await call('get', 0, keys)) as (string | null)[];
  const write = async (pairs: string[]): Promise<void> => {
    await call('set', DRAIN_PER_WRITE, pairs, 2);
  };
  return {
    async exists() {
      return (await redis.exists(store.meta, store.legacy)) > 0;
    },
    async verdicts(records, passedBy) {
      const passed = fields.map((f) => passedBy.includes(f));
      const out: (StoredVerdict | null)[] = [];
      for (const part of chunks(records, CHUNK)) {
        const stored = await read(part.map((r) => r.key));
        part.forEach((r, i) => {
          const old = decode(fields, stored[i] ?? null);
          if (old === null) return void out.push(null);
          const now = hashesOf(fields, r, old.legacy ? legacyFieldHash : fieldHash);
          const same = (j: number): boolean => now.fields[j] === undefined || now.fields[j] === old.fields[j];
          out.push({
            base: old.company === now.company && fields.every((_, j) => passed[j] === true || same(j)),
            passed: fields.every((_, j) => passed[j] !== true || same(j)),
          });
        });
      }
      return out;
    },
    async unchanged(records, options = {}) {
      const same = new Set<string>();
      for (const part of chunks(records, CHUNK)) {
        const stored = await read(part.map((r) => r.key));
        const upgraded: string[] = [];
        part.forEach((r, i) => {
          const old = decode(fields, stored[i] ?? null);
          const now = hashed(r);
          // A form-'2' hash of a field this record lacks cannot be carried into the current form: dropped (ABSENT).
          now.stored = old === null || old.legacy ? null : old.fields;
          if (old === null) return;
          if (!old.legacy) {
            if (sameAs(now, old)) same.add(r.key);
            return;
          }
          if (!sameAs(hashesOf(fields, r, legacyFieldHash), old)) return;
          same.add(r.key);
          // Rewritten in the current form unless that would lose a stored hash of a field this record lacks.
          if (options.upgrade === true && now.fields.every((h, j) => h !== undefined || old.fields[j] === ABSENT))
            upgraded.push(r.key, encode(now, null));
        });
        if (upgraded.length > 0) await write(upgraded);
      }
      return same;
    },
    async remember(records) {
      for (const part of chunks(records, CHUNK)) {
        // Fields a record lacks keep their stored hash (the CRM kept their value).
        // (read by `unchanged` just before, or read now).
        const partial = part.filter(
          (r) => hashed(r).stored === undefined && fields.some((f) => !Object.hasOwn(r.properties, f)),
        );
        const stored = partial.length > 0 ? await read(partial.map((r) => r.key)) : [];
        const previous = new Map(
          partial.map((r, i) => {
            const old = decode(fields, stored[i] ?? null);
            return [r.key, old === null || old.legacy ? null : old.fields];
          }),
        );
        // Flat field/value pairs: an object keyed by record ids would be built in dictionary mode, then walked again.
        const pairs: string[] = [];
        for (const r of part) {
          const h = hashed(r);
          pairs.push(r.key, encode(h, h.stored ?? previous.get(r.key) ?? null));
        }
        await write(pairs);
      }
    },
    async forget(keys) {
      await call('del', 0, keys);
    },
  };
}

/** Erasure (`forget`): the change hashes of match keys `keys`, in every destination, instance and mapping. */
export async function forgetChangeHashes(
  redis: Redis,
  keyPrefix: string,
  keys: readonly string[],
  apply: boolean,
): Promise<KeyHit[]> {
  // The flat hashes of the layout before (field = match key).
  const hits = await eraseMembers(redis, `${keyPrefix}:crm:hash:*`, keys, apply);
  if (keys.length === 0) return hits;
  // The buckets (field = a hash of the match key), through their own script: it finds the bucket, keeps the counts.
  for await (const meta of scanKeys(redis, `${keyPrefix}:crm:hash:*:meta`)) {
    const store = changeHashKeys(meta.slice(0, -':meta'.length));
    let count = 0;
    for (const part of chunks(keys, SCRIPT_ITEMS)) {
      const args = [store.buckets, CHANGE_HASH_TTL_SECONDS, 0, ...part];
      const found = await runLua<(string | null)[]>(redis, BUCKETS, [store.meta, store.legacy], ['get', ...args]);
      const here = found.filter((v) => v !== null && v !== undefined).length;
      if (apply && here > 0) await runLua(redis, BUCKETS, [store.meta, store.legacy], ['del', ...args]);
      count += here;
    }
    if (count > 0) hits.push({ key: store.buckets, count });
  }
  return hits;
}
