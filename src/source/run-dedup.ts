import { CompactIdSet } from './compact-id-set.js';

/**
 * Record ids seen per run, so a live index's duplicates between pages (and between partitions) are emitted once.
 * In memory, compactly (~25 bytes per id, compact-id-set.ts): the one structure that grows with the run. A resumed
 * run after a restart starts empty; upserts are idempotent.
 */
export class RunDedup {
  private readonly runs = new Map<string, CompactIdSet>();

  /** True the first time `id` is seen in `runId`. */
  admit(runId: string, id: string): boolean {
    let seen = this.runs.get(runId);
    if (!seen) {
      seen = new CompactIdSet();
      this.runs.set(runId, seen);
    }
    return seen.add(id);
  }

  end(runId: string): void {
    this.runs.delete(runId);
  }
}

/** Value at a dot path (`id`, `company.id`), as a string id, or undefined. */
export function recordId(record: unknown, path: string): string | undefined {
  let value: unknown = record;
  for (const key of path.split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
}
