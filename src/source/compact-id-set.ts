/**
 * An exact set of record ids at about half the memory of a `Set<string>` (which holds a heap string and a hash-table
 * entry per id): a run's dedup set is the one structure that grows with the run. Ids are stored as bytes in one growing arena (length prefix + bytes) and found through an
 * open-addressing table of arena offsets. Ids with a character above 0xFF or longer than 65,535 characters go to a
 * plain Set, so every id is kept exactly: no hashing shortcut can make two ids one.
 */
const EMPTY = 0;

export class CompactIdSet {
  private arena = new Uint8Array(1 << 16);
  /** Bytes used in `arena`; entries start at 1 so offset 0 can mean "empty slot". */
  private used = 1;
  /** Arena offset of each slot's id, or EMPTY. Size is a power of two, kept at most half full. */
  private slots = new Uint32Array(1 << 12);
  private count = 0;
  private readonly other = new Set<string>();

  get size(): number {
    return this.count + this.other.size;
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
    const a = this.arena;
    for (let at = 1; at < this.used;) {
      const length = ((a[at] as number) << 8) | (a[at + 1] as number);
      yield Buffer.from(a.buffer, a.byteOffset + at + 2, length).toString('latin1');
      at += 2 + length;
    }
    yield* this.other;
  }

  private append(id: string): number {
    const need = 2 + id.length;
    if (this.used + need > this.arena.length) {
      let size = this.arena.length * 2;
      while (this.used + need > size) size *= 2;
      const bigger = new Uint8Array(size);
      bigger.set(this.arena.subarray(0, this.used));
      this.arena = bigger;
    }
    const at = this.used;
    const a = this.arena;
    a[at] = id.length >>> 8;
    a[at + 1] = id.length & 0xff;
    for (let k = 0; k < id.length; k++) a[at + 2 + k] = id.charCodeAt(k);
    this.used += need;
    return at;
  }

  private equals(at: number, id: string): boolean {
    const a = this.arena;
    if ((((a[at] as number) << 8) | (a[at + 1] as number)) !== id.length) return false;
    for (let k = 0; k < id.length; k++) if (a[at + 2 + k] !== id.charCodeAt(k)) return false;
    return true;
  }

  /** Doubles the table; each entry's hash is computed again from its bytes. */
  private grow(): void {
    const old = this.slots;
    const slots = new Uint32Array(old.length * 2);
    const mask = slots.length - 1;
    const a = this.arena;
    for (const at of old) {
      if (at === EMPTY) continue;
      const length = ((a[at] as number) << 8) | (a[at + 1] as number);
      let h = FNV_OFFSET;
      for (let k = 0; k < length; k++) h = Math.imul(h ^ (a[at + 2 + k] as number), FNV_PRIME);
      let i = h & mask;
      while (slots[i] !== EMPTY) i = (i + 1) & mask;
      slots[i] = at;
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

function storable(id: string): boolean {
  if (id.length > 0xffff) return false;
  for (let k = 0; k < id.length; k++) if (id.charCodeAt(k) > 0xff) return false;
  return true;
}
