/**
 * Merges Prometheus text expositions (one per queue) so each metric family's HELP/TYPE appears once, as the
 * format requires, with all its samples under it.
 */
export function mergePrometheusText(texts: readonly string[]): string {
  const families = new Map<string, { meta: string[]; samples: string[] }>();
  const family = (name: string): { meta: string[]; samples: string[] } => {
    let entry = families.get(name);
    if (!entry) {
      entry = { meta: [], samples: [] };
      families.set(name, entry);
    }
    return entry;
  };
  for (const text of texts) {
    for (const raw of text.split('\n')) {
      const line = raw.trim();
      if (!line) continue;
      const meta = /^# (HELP|TYPE) (\S+)/.exec(line);
      if (meta) {
        const entry = family(meta[2] ?? '');
        if (!entry.meta.some((m) => m.startsWith(`# ${meta[1]} `))) entry.meta.push(line);
      } else if (!line.startsWith('#')) {
        family(/^[^{\s]+/.exec(line)?.[0] ?? '').samples.push(line);
      }
    }
  }
  return [...families.values()].flatMap((f) => [...f.meta, ...f.samples]).join('\n') + '\n';
}
