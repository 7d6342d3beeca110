/**
 * Change detection for a search's own records (the object whose match keys are its members): each record's
 * fingerprint (src/crm/record-fingerprint.ts) lives in the search's record state beside its membership flags
 * (src/shared/record-state.ts), per search and CRM instance, so the match key is stored once. A record whose field
 * has no fingerprint yet (or none of the fields passed by, which it carries now) is compared as before, field by
 * field, with the change-hash store of the releases before (src/crm/change-hash-store.ts: read, no longer written; a
 * record sent leaves it; it expires by its TTL); unchanged, it gets its fingerprint (`upgrade`), so an upgrade sends
 * nothing again.
 */
import type { Redis } from 'ioredis';
import { luaScript, runLua } from '../shared/lua-script.js';
import { RECORD_STATE_PRELUDE, recordStateKeys } from '../shared/record-state.js';
import type { ChangeDetector } from './change-detection.js';
import { createChangeHashStore } from './change-hash-store.js';
import { chunks } from './chunks.js';
import type { CrmRecord, ObjectTarget } from './crm-record.js';
import { decodePrint, PRINT_CHARS, printPlan, recordPrint, type RecordPrint } from './record-fingerprint.js';

/** Whose records these are: the search, and its mapped fields whose source a reveal-once page may leave out. */
export interface SearchRecords {
  search: string;
  passedBy?: readonly string[];
}

const PRINTS = luaScript('recordPrints', 1, ...RECORD_STATE_PRELUDE, new URL('./record-prints.lua', import.meta.url));
/** Records per script call: Redis is held for a few milliseconds at most. */
const SCRIPT_ITEMS = 250;
const CHUNK = 1000;

/** A record whose stored fingerprint could not say: which parts the store before must answer for. */
interface Undecided {
  record: CrmRecord;
  base: boolean;
  passed: boolean;
}

export function createSearchChangeDetector(
  redis: Redis,
  keyPrefix: string,
  destination: string,
  target: ObjectTarget,
  instance: string,
  own: SearchRecords,
): ChangeDetector {
  const keys = recordStateKeys(keyPrefix, own.search, instance);
  const plan = printPlan(destination, target, own.passedBy ?? []);
  const before = createChangeHashStore(redis, keyPrefix, destination, target, instance);
  let beforeExists: Promise<boolean> | undefined;
  const hasBefore = (): Promise<boolean> => (beforeExists ??= before.exists());
  // A record checked by `unchanged` and then accepted is hashed once: `remember` gets the same record objects.
  const known = new Map<CrmRecord, RecordPrint>();
  const printOf = (record: CrmRecord): RecordPrint => {
    let p = known.get(record);
    if (p === undefined) known.set(record, (p = recordPrint(plan, record)));
    return p;
  };
  const call = async (op: string, items: string[], width: number, extra: (string | number)[] = []) => {
    const out: string[] = [];
    for (const part of chunks(items, SCRIPT_ITEMS * width)) {
      const reply = await runLua<unknown>(redis, PRINTS, [keys.meta], [op, keys.buckets, ...extra, ...part]);
      if (Array.isArray(reply)) out.push(...(reply as string[]));
    }
    return out;
  };
  // Triples: key, base, the part passed by ('' keeps the stored one).
  const write = async (triples: string[]): Promise<void> => {
    await call('set', triples, 3, [PRINT_CHARS]);
  };
  const triple = (r: CrmRecord): string[] => {
    const p = printOf(r);
    return [r.key, p.base, p.passed ?? ''];
  };

  /** The records of `part` unchanged by their fingerprints, and those the store before must decide. */
  const byPrints = async (part: CrmRecord[], same: Set<string>): Promise<Undecided[]> => {
    const stored = await call(
      'get',
      part.map((r) => r.key),
      1,
    );
    const undecided: Undecided[] = [];
    part.forEach((r, i) => {
      const now = printOf(r);
      const old = decodePrint(stored[i] ?? '');
      if (old.base !== undefined && old.base !== now.base) return;
      if (old.passed !== undefined && now.passed !== undefined && old.passed !== now.passed) return;
      const base = old.base === undefined;
      const passed = now.passed !== undefined && old.passed === undefined;
      if (base || passed) undecided.push({ record: r, base, passed });
      else same.add(r.key);
    });
    return undecided;
  };

  return {
    async unchanged(records, options = {}) {
      const same = new Set<string>();
      for (const part of chunks(records, CHUNK)) {
        const undecided = await byPrints(part, same);
        if (undecided.length === 0 || !(await hasBefore())) continue;
        const verdicts = await before.verdicts(
          undecided.map((u) => u.record),
          plan.passedBy,
        );
        const upgraded: string[] = [];
        undecided.forEach((u, i) => {
          const v = verdicts[i];
          if (v === null || v === undefined || (u.base && !v.base) || (u.passed && !v.passed)) return;
          same.add(u.record.key);
          if (options.upgrade === true) upgraded.push(...triple(u.record));
        });
        if (upgraded.length > 0) await write(upgraded);
      }
      return same;
    },
    async remember(records) {
      for (const part of chunks(records, CHUNK)) {
        await write(part.flatMap(triple));
        // What the store before holds of a record sent now is stale: gone, it can never answer for it again (a
        // renamed search, a fingerprint dropped) with values older than the CRM's.
        if (await hasBefore()) await before.forget(part.map((r) => r.key));
      }
    },
    async forget(keys) {
      await call('drop', keys, 1);
      // The store before would otherwise answer for a record that has no fingerprint now.
      if (await hasBefore()) await before.forget(keys);
    },
  };
}
