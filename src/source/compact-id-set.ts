/**
 * An exact set of record ids at about half the memory of a `Set<string>` (which holds a heap string and a hash-table
 * entry per id): a run's dedup set is the one structure that grows with the run. Ids are stored as bytes in an arena
 * of fixed-size chunks (length prefix + bytes; a chunk is never copied or doubled, so the arena holds its ids and at
 * most one chunk more) and found through an open-addressing table of arena offsets. Ids with a character above 0xFF
 * or too long for a chunk go to a plain Set, so every id is kept exactly: no hashing shortcut can make two ids one.
 */
const EMPTY = 0;
/** Bytes per arena chunk; an offset is chunk index × CHUNK + position in the chunk. */
const CHUNK_BITS = 16;
const CHUNK = 1 << CHUNK_BITS;
/** Longest id stored as bytes: its 2-byte length prefix and bytes fit in one chunk. */
const MAX_STORED = CHUNK - 2;

export class CompactIdSet {
  private readonly chunks: Uint8Array[] = [new Uint8Array(CHUNK)];
  /** Bytes used in the last chunk; the first entry starts at 1 so offset 0 can mean "empty slot". */
  private used = 1;
  /** Arena offset of each slot's id, or EMPTY. Size is a power of two, kept at most half full. */
  private slots = new Uint32Array(1 << 12);
  private count = 0;
  private readonly other = new Set<string>();

  get size(): number {
    return this.count + this.other.size;
  }

  /** Bytes the set holds in arrays (arena chunks and slot table), not counting ids kept apart. */
  get bytes(): number {
    return this.chunks.length * CHUNK + this.slots.byteLength;
  }

  /** Adds `id`; true when it was not in the set before. */
  add(id: string): boolean {
    if (!storable(id)) {
      if (this.other.has(id)) return false;
      this.other.add(id);
      return true;
    }
    const mask = this.slots.length - 1;
    for (let i = hashOf(id) & mask; ; i = (i + 1) & mask) {
      const at = this.slots[i] as number;
      if (at === EMPTY) {
        this.slots[i] = this.append(id);
        this.count += 1;
        if (this.count * 2 > this.slots.length) this.grow();
        return true;
      }
      if (this.equals(at, id)) return false;
    }
  }

  has(id: string): boolean {
    if (!storable(id)) return this.other.has(id);
    const mask = this.slots.length - 1;
    for (let i = hashOf(id) & mask; ; i = (i + 1) & mask) {
      const at = this.slots[i] as number;
      if (at === EMPTY) return false;
      if (this.equals(at, id)) return true;
    }
  }

  /** Every id, in the order added (the arena's), then those kept apart. */
  *[Symbol.iterator](): Generator<string> {
    const last = this.chunks.length - 1;
    for (let c = 0; c <= last; c++) {
      const a = this.chunks[c] as Uint8Array;
      const end = c === last ? this.used : CHUNK;
      for (let at = c === 0 ? 1 : 0; at + 2 <= end;) {
        const length = ((a[at] as number) << 8) | (a[at + 1] as number);
        // A chunk's unused tail reads as length 0 past its last entry: ids of length 0 are kept apart.
        if (length === 0) break;
        yield Buffer.from(a.buffer, a.byteOffset + at + 2, length).toString('latin1');
        at += 2 + length;
      }
    }
    yield* this.other;
  }

  private append(id: string): number {
    const need = 2 + id.length;
    if (this.used + need > CHUNK) {
      this.chunks.push(new Uint8Array(CHUNK));
      this.used = 0;
    }
    const c = this.chunks.length - 1;
    const a = this.chunks[c] as Uint8Array;
    const at = this.used;
    a[at] = id.length >>> 8;
    a[at + 1] = id.length & 0xff;
    for (let k = 0; k < id.length; k++) a[at + 2 + k] = id.charCodeAt(k);
    this.used += need;
    return c * CHUNK + at;
  }

  private equals(offset: number, id: string): boolean {
    const a = this.chunks[offset >>> CHUNK_BITS] as Uint8Array;
    const at = offset & (CHUNK - 1);
    if ((((a[at] as number) << 8) | (a[at + 1] as number)) !== id.length) return false;
    for (let k = 0; k < id.length; k++) if (a[at + 2 + k] !== id.charCodeAt(k)) return false;
    return true;
  }

  /** Doubles the table; each entry's hash is computed again from its bytes. */
  private grow(): void {
    const old = this.slots;
    const slots = new Uint32Array(old.length * 2);
    const mask = slots.length - 1;
    for (const offset of old) {
      if (offset === EMPTY) continue;
      const a = this.chunks[offset >>> CHUNK_BITS] as Uint8Array;
      const at = offset & (CHUNK - 1);
      const length = ((a[at] as number) << 8) | (a[at + 1] as number);
      let h = FNV_OFFSET;
      for (let k = 0; k < length; k++) h = Math.imul(h ^ (a[at + 2 + k] as number), FNV_PRIME);
      let i = h & mask;
      while (slots[i] !== EMPTY) i = (i + 1) & mask;
      slots[i] = offset;
    }
    this.slots = slots;
  }
}

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** FNV-1a over the id's char codes (all <= 0xFF here, so the same as over its stored bytes). */
function hashOf(id: string): number {
  let h = FNV_OFFSET;
  for (let k = 0; k < id.length; k++) h = Math.imul(h ^ id.charCodeAt(k), FNV_PRIME);
  return h >>> 0;
}

/** The empty id is kept apart: a length of 0 marks a chunk's unused tail. */
function storable(id: string): boolean {
  if (id.length === 0 || id.length > MAX_STORED) return false;
  for (let k = 0; k < id.length; k++) if (id.charCodeAt(k) > 0xff) return false;
  return true;
}
