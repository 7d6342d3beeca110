/**
 * Dot paths into source records (`a.b`, `a.0.b`). The worker knows no record field names: every path comes from
 * the config, so a missing step simply yields `undefined`.
 */
export type RecordPath = readonly string[];

export function parseRecordPath(path: string): RecordPath | undefined {
  const steps = path.split('.');
  return steps.every((step) => step.length > 0) ? steps : undefined;
}

export function readPath(record: unknown, path: RecordPath): unknown {
  let current: unknown = record;
  for (const step of path) {
    if (current === null || current === undefined) return undefined;
    if (Array.isArray(current)) {
      if (!/^\d+$/.test(step)) return undefined;
      current = current[Number(step)];
    } else if (typeof current === 'object') {
      // Own properties only: a path like `constructor` or `__proto__` must not reach Object.prototype.
      current = Object.hasOwn(current, step) ? (current as Record<string, unknown>)[step] : undefined;
    } else {
      return undefined;
    }
  }
  return current;
}
