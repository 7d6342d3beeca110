/**
 * Compiled filter over the typed-array dataset: tight loops for counts (under 50 ms at 1M companies / 5M
 * persons) and forward/backward scans for pages. Presence (live-index churn) is read at call time.
 */
import { COUNTRY_REGION_CODE } from './dictionaries.js';
import type { CompanyTable, Dataset, PersonTable } from './dataset.js';
import type { CompanySpec, Entity, FilterSpec } from './filter-spec.js';

export interface Matcher {
  readonly entity: Entity;
  /** Slots in the internal order (present or not). */
  readonly slots: number;
  /** Whether the slot's record matches the filter, present or not. */
  matchesIgnoringPresence(slot: number): boolean;
  matches(slot: number): boolean;
  count(): number;
  /** Collects up to `limit` present matches from `start`; returns the slot after the last one scanned. */
  scan(start: number, limit: number, out: number[]): number;
  /** The slot `n` present matches before `start` (or 0). */
  stepBack(start: number, n: number): number;
  /** The slot just after the `n`-th present match at or after `start`. */
  stepForward(start: number, n: number): number;
}

function isEmpty(s: CompanySpec): boolean {
  return Object.values(s).every((v) => v === undefined);
}

/** Bitmap of companies matching the company part of a filter (presence ignored: a person's employer is data). */
function companyBitmap(t: CompanyTable, s: CompanySpec): Uint8Array {
  // One branch-light pass: absent constraints become all-pass masks and full ranges.
  const industry = s.industry ?? new Uint8Array(256).fill(1);
  const country = new Uint8Array(256);
  for (let c = 0; c < COUNTRY_REGION_CODE.length; c++) {
    country[c] = (s.country ? s.country[c]! : 1) & (s.region ? s.region[COUNTRY_REGION_CODE[c]!]! : 1);
  }
  const [hLo, hHi] = s.headcount ?? [0, Number.MAX_VALUE];
  const [rLo, rHi] = s.revenue ?? [0, Number.MAX_VALUE];
  const [yLo, yHi] = s.foundedYear ?? [0, Number.MAX_VALUE];
  const tech = s.technologies ?? 0xffffffff;
  const { industry: ind, country: cty, headcount, revenue, foundedYear, technologies } = t;
  const out = new Uint8Array(t.slots);
  for (let i = 0; i < t.slots; i++) {
    const h = headcount[i]!;
    const r = revenue[i]!;
    const y = foundedYear[i]!;
    out[i] =
      industry[ind[i]!]! &
      country[cty[i]!]! &
      (h >= hLo && h <= hHi && r >= rLo && r <= rHi && y >= yLo && y <= yHi && (technologies[i]! & tech) !== 0 ? 1 : 0);
  }
  return out;
}

/** Below this share of matching companies, counting visits only their persons (grouped) instead of all persons. */
const GROUPED_SHARE = 0.25;

function personCounter(
  t: PersonTable,
  companyOk: Uint8Array | undefined,
  title: Uint8Array | undefined,
  country: Uint8Array | undefined,
): () => number {
  const { present, companySlot, title: titles, country: countries, slots, byCompany, companyStart } = t;
  const anyTitle = title ?? new Uint8Array(65536).fill(1);
  const anyCountry = country ?? new Uint8Array(256).fill(1);
  const linear = (): number => {
    let n = 0;
    for (let i = 0; i < slots; i++) {
      if (present[i] === 0 || anyTitle[titles[i]!] === 0 || anyCountry[countries[i]!] === 0) continue;
      if (companyOk !== undefined && companyOk[companySlot[i]!] === 0) continue;
      n++;
    }
    return n;
  };
  if (companyOk === undefined) return linear;
  let matchedCompanies = 0;
  for (let c = 0; c < companyOk.length; c++) matchedCompanies += companyOk[c]!;
  if (matchedCompanies > companyOk.length * GROUPED_SHARE) return linear;
  return () => {
    let n = 0;
    for (let c = 0; c < companyOk.length; c++) {
      if (companyOk[c] === 0) continue;
      for (let k = companyStart[c]!, end = companyStart[c + 1]!; k < end; k++) {
        const i = byCompany[k]!;
        if (present[i] !== 0 && anyTitle[titles[i]!] !== 0 && anyCountry[countries[i]!] !== 0) n++;
      }
    }
    return n;
  };
}

export function compileMatcher(data: Dataset, entity: Entity, spec: FilterSpec): Matcher {
  let present: Uint8Array;
  let slots: number;
  let test: (slot: number) => boolean;
  let count: () => number;
  if (entity === 'companies') {
    const t = data.companies;
    present = t.present;
    slots = t.slots;
    const ok = companyBitmap(t, spec.company);
    test = (i) => ok[i] === 1;
    count = () => {
      let n = 0;
      for (let i = 0; i < slots; i++) n += present[i]! & ok[i]!;
      return n;
    };
  } else {
    const t = data.persons;
    present = t.present;
    slots = t.slots;
    const companyOk = isEmpty(spec.company) ? undefined : companyBitmap(data.companies, spec.company);
    const { title, country } = spec.person;
    test = (i) =>
      (title === undefined || title[t.title[i]!] === 1) &&
      (country === undefined || country[t.country[i]!] === 1) &&
      (companyOk === undefined || companyOk[t.companySlot[i]!] === 1);
    count = personCounter(t, companyOk, title, country);
  }
  const matches = (i: number): boolean => present[i] !== 0 && test(i);
  return {
    entity,
    slots,
    matchesIgnoringPresence: test,
    matches,
    count,
    scan(start, limit, out) {
      let i = start;
      while (i < slots && out.length < limit) {
        if (matches(i)) out.push(i);
        i++;
      }
      return i;
    },
    stepBack(start, n) {
      let i = Math.min(start, slots);
      let left = n;
      while (left > 0 && i > 0) {
        i--;
        if (matches(i)) left--;
      }
      return i;
    },
    stepForward(start, n) {
      let i = start;
      let left = n;
      while (left > 0 && i < slots) {
        if (matches(i)) left--;
        i++;
      }
      return i;
    },
  };
}
