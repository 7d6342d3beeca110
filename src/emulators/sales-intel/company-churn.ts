/**
 * Index churn of companies between runs (a test control, as the real index changes from one day to the next): a
 * share of the visible companies change their headcount (a field a search maps), leave the index, or enter it from
 * the hidden reserve, in thirds, drawn from a seed so a benchmark replays the same days. A company that left does not
 * come back: a new company is a new id.
 */
import type { Dataset } from './dataset.js';
import { compileMatcher, type Matcher } from './filter-matcher.js';
import { parseFilterBody, type FilterSpec, type ValidationDetail } from './filter-spec.js';
import { createPrng } from './hash.js';
import type { LiveIndex } from './live-index.js';
import { companyId } from './record-render.js';
import type { ChurnedCompany, ChurnKind } from './types.js';

export type { ChurnedCompany, ChurnKind };

/** Headcounts move by up to a quarter either way, as a company's size is revised. */
function revisedHeadcount(h: number, random: () => number): number {
  const next = Math.max(1, Math.round(h * (0.8 + random() * 0.45)));
  return next === h ? h + 1 : next;
}

/** Picks `n` distinct entries of `pool` at random (a partial shuffle of the pool, which it reorders). */
function draw(pool: number[], n: number, random: () => number): number[] {
  const take = Math.min(n, pool.length);
  for (let i = 0; i < take; i++) {
    const j = i + Math.floor(random() * (pool.length - i));
    [pool[i], pool[j]] = [pool[j]!, pool[i]!];
  }
  return pool.slice(0, take);
}

export class CompanyChurn {
  private readonly departed = new Set<number>();

  constructor(
    private readonly data: Dataset,
    private readonly live: LiveIndex,
  ) {}

  /** Named company filters (search bodies) parsed; the details of the first invalid one otherwise. */
  private static specs(filters: Record<string, unknown>): Map<string, FilterSpec> | ValidationDetail[] {
    const out = new Map<string, FilterSpec>();
    for (const [name, body] of Object.entries(filters)) {
      const parsed = parseFilterBody('companies', body);
      if (!parsed.ok)
        return parsed.details.map((d) => ({ ...d, path: `filters.${name}${d.path ? `.${d.path}` : ''}` }));
      out.set(name, parsed.spec);
    }
    return out;
  }

  /**
   * One step of churn: round(visible × share) companies, a third each changed, left, entered (fewer enter when the
   * reserve runs short); each with the names of `filters` it matches. Nothing changes when a filter is invalid.
   */
  apply(share: number, seed: number, filters: Record<string, unknown>): ChurnedCompany[] | ValidationDetail[] {
    const specs = CompanyChurn.specs(filters);
    if (!(specs instanceof Map)) return specs;
    const t = this.data.companies;
    const random = createPrng(seed);
    const visible: number[] = [];
    const reserve: number[] = [];
    for (let s = 0; s < t.slots; s++) {
      if (t.present[s] === 1) visible.push(s);
      else if (!this.departed.has(s)) reserve.push(s);
    }
    const n = Math.round(visible.length * share);
    const changing = Math.round(n / 3);
    const leaving = Math.round(n / 3);
    const picked = draw(visible, changing + leaving, random);
    const changed = picked.slice(0, changing).sort((a, b) => a - b);
    const left = picked.slice(changing).sort((a, b) => a - b);
    const entered = draw(reserve, n - changing - leaving, random).sort((a, b) => a - b);
    for (const s of changed) t.headcount[s] = revisedHeadcount(t.headcount[s]!, random);
    // compiled after the headcounts moved: a matcher holds a bitmap of the values at compile time
    const matchers = [...specs].map(([name, spec]): [string, Matcher] => [
      name,
      compileMatcher(this.data, 'companies', spec),
    ]);
    this.live.remove('companies', left);
    for (const s of left) this.departed.add(s);
    this.live.insert('companies', entered);
    const row = (s: number, change: ChurnKind): ChurnedCompany => ({
      id: companyId(s),
      change,
      headcount: t.headcount[s]!,
      matches: matchers.filter(([, m]) => m.matchesIgnoringPresence(s)).map(([name]) => name),
    });
    return [
      ...changed.map((s) => row(s, 'changed')),
      ...left.map((s) => row(s, 'left')),
      ...entered.map((s) => row(s, 'entered')),
    ];
  }
}
