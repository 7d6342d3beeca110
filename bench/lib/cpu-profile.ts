/** Summarises a V8 `.cpuprofile` (Node's --cpu-prof): self time per function, the top N. */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface SelfTime {
  fn: string;
  where: string;
  ms: number;
  share: number;
}

export function topSelfTime(file: string, n = 10): SelfTime[] {
  const p = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(p.nodes.map((node) => [node.id, node]));
  const self = new Map<string, number>();
  let total = 0;
  p.samples.forEach((id, i) => {
    const us = p.timeDeltas[i] ?? 0;
    const f = byId.get(id)!.callFrame;
    // Idle and program are the event loop waiting, not work.
    if (f.functionName === '(idle)') return;
    const where = f.url.replace(/^file:\/\/.*?\/(node_modules|dist)\//, '$1/').replace(/^node:/, 'node:');
    const key = `${f.functionName || '(anonymous)'}\t${where}${f.url ? `:${f.lineNumber + 1}` : ''}`;
    self.set(key, (self.get(key) ?? 0) + us);
    total += us;
  });
  return [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([key, us]) => {
      const [fn, where] = key.split('\t') as [string, string];
      return { fn, where, ms: Math.round(us / 1000), share: Number((us / total).toFixed(3)) };
    });
}
