import { describe, expect, it } from 'vitest';
import { CompactIdSet } from '../../src/source/compact-id-set.js';
import { RunDedup } from '../../src/source/run-dedup.js';

/** Deterministic PRNG so a failure reproduces. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    return s / 2 ** 32;
  };
}

describe('CompactIdSet', () => {
  it('answers exactly like a Set<string> over many ids, through table and arena growth', () => {
    const rand = rng(7);
    const set = new CompactIdSet();
    const reference = new Set<string>();
    const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789_-';
    const ids: string[] = [];
    for (let n = 0; n < 60_000; n++) {
      // short and long ids, ids that are prefixes of each other, re-adds of earlier ids
      if (ids.length > 0 && rand() < 0.2) {
        ids.push(ids[Math.floor(rand() * ids.length)] as string);
        continue;
      }
      const length = rand() < 0.01 ? 300 + Math.floor(rand() * 500) : 1 + Math.floor(rand() * 12);
      let id = '';
      for (let k = 0; k < length; k++) id += alphabet[Math.floor(rand() * alphabet.length)];
      ids.push(id, `${id}x`);
    }
    for (const id of ids) {
      const isNew = !reference.has(id);
      reference.add(id);
      expect(set.add(id)).toBe(isNew);
    }
    expect(set.size).toBe(reference.size);
    for (const id of reference) expect(set.has(id)).toBe(true);
    expect(set.has('not-there')).toBe(reference.has('not-there'));
  });

  it('keeps ids it cannot store as bytes (non-Latin-1, the empty id, very long) exactly too', () => {
    const set = new CompactIdSet();
    const odd = ['', 'ü-latin1', '日本-1', '日本-2', 'é'.repeat(3), 'a'.repeat(70_000), 'a'.repeat(69_999)];
    for (const id of odd) expect(set.add(id)).toBe(true);
    for (const id of odd) expect(set.add(id)).toBe(false);
    expect(set.has('日本-3')).toBe(false);
    expect(set.size).toBe(odd.length);
  });

  it('gives back every id once, bytes and the ids kept apart alike', () => {
    const set = new CompactIdSet();
    const ids = ['p_1', 'ü-latin1', '\u00ff\u0080', '日本-1', '', 'a'.repeat(70_000)];
    for (let n = 0; n < 5000; n++) ids.push(`p_${n}x`);
    for (const id of [...ids, ...ids]) set.add(id);
    const back = [...set];
    expect(back.length).toBe(ids.length);
    expect(new Set(back)).toEqual(new Set(ids));
  });

  it('holds its ids and at most one arena chunk more: the arena grows by chunks, never by doubling', () => {
    const set = new CompactIdSet();
    const ids = 60_000;
    for (let n = 0; n < ids; n++) set.add(`c_${n.toString(36).padStart(5, '0')}`);
    const idBytes = ids * (2 + 7);
    // The slot table: the smallest power of two at least twice the ids, 4 bytes a slot.
    const table = 4 * 2 ** Math.ceil(Math.log2(2 * ids));
    expect(set.bytes).toBeGreaterThanOrEqual(idBytes + table);
    expect(set.bytes).toBeLessThanOrEqual(idBytes + 65_536 + table);
    expect([...set].length).toBe(ids);
  });

  it('RunDedup admits an id once per run (a repeat within a page too) and forgets a run that ended', async () => {
    const dedup = new RunDedup();
    expect(await dedup.forRun('r1').admit(['c_1', 'c_2', 'c_1'])).toEqual([true, true, false]);
    expect(await dedup.forRun('r1').admit(['c_1'])).toEqual([false]);
    expect(await dedup.forRun('r2').admit(['c_1'])).toEqual([true]);
    dedup.end('r1');
    expect(await dedup.forRun('r1').admit(['c_1'])).toEqual([true]);
  });
});
