import { CompactIdSet } from './compact-id-set.js';

/**
 * The record ids a run has seen, asked once per page: a record found again (a live index's repeat between pages, an
 * overlap of partitions, a sweep) is emitted once per run. A run of the sync job keeps them in Redis
 * (src/runs/run-record-ids.ts), so the worker holds nothing per record and a resumed attempt goes on deduping.
 */
export interface PageDedup {
  /** For each id of a page, in order: true the first time the run sees it (a repeat within the page is seen). */
  admit(ids: readonly string[]): Promise<boolean[]>;
}

/**
 * The source client's own dedup, in memory per run id (compact-id-set.ts), for journeys that bring none (library
 * use, tests): it grows with the run and a resumed run starts empty.
 */
export class RunDedup {
  private readonly runs = new Map<string, CompactIdSet>();

  forRun(runId: string): PageDedup {
    return {
      admit: (ids) => {
        let seen = this.runs.get(runId);
        if (!seen) {
          seen = new CompactIdSet();
          this.runs.set(runId, seen);
        }
        const set = seen;
        return Promise.resolve(ids.map((id) => set.add(id)));
      },
    };
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
