/** `after:` between searches: every name known, none itself, no cycle (a cycle would make its runs wait forever). */
import type { ConfigPath } from './yaml-tree.js';

interface OrderedSearch {
  name: string;
  after?: readonly string[] | undefined;
}

interface OrderIssue {
  path: ConfigPath;
  message: string;
}

export function checkOrder(searches: readonly OrderedSearch[], issues: OrderIssue[]): void {
  const names = new Set(searches.map((s) => s.name));
  searches.forEach((search, index) => {
    search.after?.forEach((name, i) => {
      const path: ConfigPath = ['searches', index, 'after', i];
      if (name === search.name) issues.push({ path, message: 'a search cannot run after itself' });
      else if (!names.has(name))
        issues.push({ path, message: `unknown search '${name}' (defined: ${[...names].join(', ')})` });
    });
  });
  const cycle = findCycle(searches);
  if (cycle) {
    const index = searches.findIndex((s) => s.name === cycle[0]);
    issues.push({
      path: ['searches', index, 'after'],
      message: `runs would wait for each other forever: ${cycle.join(' -> ')}`,
    });
  }
}

/** The first cycle of `after` edges, as names from and back to its first search; undefined when there is none. */
function findCycle(searches: readonly OrderedSearch[]): string[] | undefined {
  const edges = new Map(searches.map((s) => [s.name, (s.after ?? []).filter((n) => n !== s.name)]));
  const done = new Set<string>();
  const visit = (name: string, trail: string[]): string[] | undefined => {
    const seen = trail.indexOf(name);
    if (seen >= 0) return [...trail.slice(seen), name];
    if (done.has(name)) return undefined;
    for (const next of edges.get(name) ?? []) {
      const found = visit(next, [...trail, name]);
      if (found) return found;
    }
    done.add(name);
    return undefined;
  };
  for (const name of edges.keys()) {
    const found = visit(name, []);
    if (found) return found;
  }
  return undefined;
}
