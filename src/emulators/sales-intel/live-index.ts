/**
 * Live-index churn: between cursor pages, records are inserted and removed just behind the journey's position.
 * Cursors page by ordinal (like a live search index), so a removal behind the cursor skips the next record and
 * an insertion behind it repeats the previous one; the ids touched are logged so tests can compute expectations.
 */
import type { Dataset } from './dataset.js';
import type { Entity } from './filter-spec.js';
import type { Matcher } from './filter-matcher.js';
import { companyId, personId } from './record-render.js';

interface ChurnEvent {
  entity: Entity;
  slot: number;
  change: 1 | -1;
}

export class LiveIndex {
  private readonly events: ChurnEvent[] = [];

  constructor(private readonly data: Dataset) {}

  get epoch(): number {
    return this.events.length;
  }

  private idOf(entity: Entity, slot: number): string {
    return entity === 'companies' ? companyId(slot) : personId(slot);
  }

  private present(entity: Entity): Uint8Array {
    return entity === 'companies' ? this.data.companies.present : this.data.persons.present;
  }

  /** Inserts then removes matching records behind `cursorSlot`; returns the ids touched. */
  churn(m: Matcher, cursorSlot: number, insert: number, remove: number): { inserted: string[]; removed: string[] } {
    const present = this.present(m.entity);
    const inserted: string[] = [];
    const removed: string[] = [];
    let s = cursorSlot;
    while (inserted.length < insert && s > 0) {
      s--;
      if (present[s] === 0 && m.matchesIgnoringPresence(s)) {
        present[s] = 1;
        this.events.push({ entity: m.entity, slot: s, change: 1 });
        inserted.push(this.idOf(m.entity, s));
      }
    }
    s = cursorSlot;
    while (removed.length < remove && s > 0) {
      s = m.stepBack(s, 1);
      if (!m.matches(s)) break;
      present[s] = 0;
      this.events.push({ entity: m.entity, slot: s, change: -1 });
      removed.push(this.idOf(m.entity, s));
    }
    return { inserted, removed };
  }

  /** Makes hidden slots visible (a test control: new records appear between runs); returns their ids. */
  insert(entity: Entity, slots: readonly number[]): string[] {
    const present = this.present(entity);
    const ids: string[] = [];
    for (const s of slots) {
      if (present[s] !== 0) continue;
      present[s] = 1;
      this.events.push({ entity, slot: s, change: 1 });
      ids.push(this.idOf(entity, s));
    }
    return ids;
  }

  /** Hides visible slots (a test control: records leave the index between runs); returns their ids. */
  remove(entity: Entity, slots: readonly number[]): string[] {
    const present = this.present(entity);
    const ids: string[] = [];
    for (const s of slots) {
      if (present[s] !== 1) continue;
      present[s] = 0;
      this.events.push({ entity, slot: s, change: -1 });
      ids.push(this.idOf(entity, s));
    }
    return ids;
  }

  /** Where a cursor issued at `epoch` for `slot` resumes after the churn since then. */
  resume(m: Matcher, slot: number, epoch: number): number {
    let delta = 0;
    for (let k = epoch; k < this.events.length; k++) {
      const e = this.events[k]!;
      if (e.entity === m.entity && e.slot < slot && m.matchesIgnoringPresence(e.slot)) delta += e.change;
    }
    if (delta > 0) return m.stepBack(slot, delta);
    if (delta < 0) return m.stepForward(slot, -delta);
    return slot;
  }
}
