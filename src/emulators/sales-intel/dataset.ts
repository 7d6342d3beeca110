/**
 * Synthetic data held as typed arrays (a few bytes per record), so 1M companies + 5M persons fit without one JS
 * object per record. Records live in "slots" in a fixed internal order; every 65th slot is a hidden reserve that
 * live-index churn can insert, so visible counts are exactly the requested sizes.
 */
import { COUNTRIES, DEPARTMENTS, INDUSTRIES, SENIORITIES, TECHNOLOGIES } from './dictionaries.js';
import { hash3, unit } from './hash.js';
import { TITLE_VARIANTS } from './name-parts.js';

const MAX_COMPANIES = 1_000_000;
const MAX_PERSONS = 5_000_000;
const RESERVE_EVERY = 65;

/** Slot of the k-th visible record (ids of the visible records: `companyId(slotOfOrdinal(k))`). */
export function slotOfOrdinal(k: number, every = RESERVE_EVERY): number {
  return k + Math.floor(k / (every - 1));
}

function slotCount(visible: number, every = RESERVE_EVERY): number {
  return visible === 0 ? 0 : slotOfOrdinal(visible - 1, every) + 1;
}

function presentBitmap(slots: number, every = RESERVE_EVERY): Uint8Array {
  const present = new Uint8Array(slots).fill(1);
  for (let s = every - 1; s < slots; s += every) present[s] = 0;
  return present;
}

type ColumnType = Uint8ArrayConstructor | Uint16ArrayConstructor | Uint32ArrayConstructor | Float64ArrayConstructor;

/** A table of `slots` rows: the presence bitmap plus one zeroed typed array per column. */
function allocateTable<C extends Record<string, ColumnType>>(
  layout: { slots: number; present: Uint8Array },
  columns: C,
): { slots: number; present: Uint8Array } & { [K in keyof C]: InstanceType<C[K]> } {
  const { slots, present } = layout;
  const arrays = Object.fromEntries(Object.entries(columns).map(([name, Type]) => [name, new Type(slots)]));
  return { slots, present, ...arrays } as { slots: number; present: Uint8Array } & {
    [K in keyof C]: InstanceType<C[K]>;
  };
}

export interface CompanyTable {
  slots: number;
  present: Uint8Array;
  industry: Uint8Array;
  country: Uint8Array;
  headcount: Uint32Array;
  revenue: Float64Array;
  foundedYear: Uint16Array;
  technologies: Uint32Array;
}

export interface PersonTable {
  slots: number;
  present: Uint8Array;
  companySlot: Uint32Array;
  title: Uint16Array;
  country: Uint8Array;
  /**
   * Person slots grouped by company (CSR): persons of company c are byCompany[companyStart[c] .. companyStart[c+1]).
   */
  byCompany: Uint32Array;
  companyStart: Uint32Array;
}

export interface Dataset {
  seed: number;
  companies: CompanyTable;
  persons: PersonTable;
}

/** Salt values so each attribute draws an independent hash. */
const Salt = {
  Industry: 1,
  Country: 2,
  Headcount: 3,
  Revenue: 4,
  Founded: 5,
  Tech: 6,
  TechCount: 7,
  PCompany: 8,
  PTitle: 9,
  PCountry: 10,
  PCountryKeep: 11,
  PHidden: 12,
  CHidden: 13,
} as const;

/**
 * Slots and presence of a table. The default reserve is every 65th slot; another `every` hides a slot with chance
 * 1/every at random (seeded), so records inserted later land at random places, not on a grid.
 */
function reserveSlots(
  seed: number,
  visible: number,
  every: number,
  salt: number,
): { slots: number; present: Uint8Array } {
  if (every === RESERVE_EVERY) return defaultSlots(visible);
  const hidden = (s: number): boolean => hash3(seed, s, salt) % every === 0;
  let slots = 0;
  for (let seen = 0; seen < visible; slots++) if (!hidden(slots)) seen++;
  const present = new Uint8Array(slots);
  for (let s = 0; s < slots; s++) present[s] = hidden(s) ? 0 : 1;
  return { slots, present };
}

/** Slots of a table with the default reserve (every RESERVE_EVERY-th slot empty, for live-index inserts). */
function defaultSlots(visible: number): { slots: number; present: Uint8Array } {
  const slots = slotCount(visible);
  return { slots, present: presentBitmap(slots) };
}

function buildCompanies(seed: number, visible: number, every: number): CompanyTable {
  const t: CompanyTable = allocateTable(reserveSlots(seed, visible, every, Salt.CHidden), {
    industry: Uint8Array,
    country: Uint8Array,
    headcount: Uint32Array,
    revenue: Float64Array,
    foundedYear: Uint16Array,
    technologies: Uint32Array,
  });
  const slots = t.slots;
  const techCount = TECHNOLOGIES.length;
  for (let s = 0; s < slots; s++) {
    t.industry[s] = hash3(seed, s, Salt.Industry) % INDUSTRIES.length;
    // Skewed towards the first countries (US, ..., DACH) like a real B2B index.
    t.country[s] = Math.floor(unit(hash3(seed, s, Salt.Country)) ** 1.6 * COUNTRIES.length);
    // Log-uniform 1..100,000 employees.
    const headcount = Math.max(1, Math.floor(Math.exp(unit(hash3(seed, s, Salt.Headcount)) * Math.log(100_000))));
    t.headcount[s] = headcount;
    t.revenue[s] = headcount * (40_000 + (hash3(seed, s, Salt.Revenue) % 260_000));
    t.foundedYear[s] = 2025 - Math.floor(unit(hash3(seed, s, Salt.Founded)) ** 2 * 125);
    let mask = 0;
    const n = 1 + (hash3(seed, s, Salt.TechCount) % 5);
    for (let k = 0; k < n; k++) mask |= 1 << (hash3(seed, s, Salt.Tech + k * 16) % techCount);
    t.technologies[s] = mask >>> 0;
  }
  return t;
}

/** Slots of the visible records of a table, in order (a person's employer is drawn among them). */
function visibleSlots(present: Uint8Array): Uint32Array {
  let n = 0;
  for (let s = 0; s < present.length; s++) n += present[s]!;
  const out = new Uint32Array(n);
  for (let s = 0, k = 0; s < present.length; s++) if (present[s] === 1) out[k++] = s;
  return out;
}

function buildPersons(seed: number, visible: number, companies: CompanyTable, every: number): PersonTable {
  const t: PersonTable = {
    ...allocateTable(reserveSlots(seed, visible, every, Salt.PHidden), {
      companySlot: Uint32Array,
      title: Uint16Array,
      country: Uint8Array,
      byCompany: Uint32Array,
    }),
    companyStart: new Uint32Array(companies.slots + 1),
  };
  const slots = t.slots;
  const titles = SENIORITIES.length * DEPARTMENTS.length * TITLE_VARIANTS;
  const employers = visibleSlots(companies.present);
  for (let s = 0; s < slots; s++) {
    const c = employers.length === 0 ? 0 : employers[hash3(seed, s, Salt.PCompany) % employers.length]!;
    t.companySlot[s] = c;
    t.title[s] = hash3(seed, s, Salt.PTitle) % titles;
    t.country[s] =
      hash3(seed, s, Salt.PCountryKeep) % 5 === 0
        ? hash3(seed, s, Salt.PCountry) % COUNTRIES.length
        : (companies.country[c] ?? 0);
  }
  groupByCompany(t);
  return t;
}

/** Counting sort of person slots by company, so a selective company filter visits only its companies' persons. */
function groupByCompany(t: PersonTable): void {
  const start = t.companyStart;
  const company = t.companySlot;
  for (let s = 0; s < t.slots; s++) start[company[s]! + 1] = start[company[s]! + 1]! + 1;
  for (let c = 1; c < start.length; c++) start[c] = start[c]! + start[c - 1]!;
  const fill = start.slice(0, start.length - 1);
  for (let s = 0; s < t.slots; s++) {
    const c = company[s]!;
    t.byCompany[fill[c]!] = s;
    fill[c] = fill[c]! + 1;
  }
}

/**
 * `personReserveEvery`, `companyReserveEvery`: every 65th slot is hidden reserve by default (~1.5%); another n hides 1
 * in n slots at random, leaving room for tests that insert a larger share of new records (`insertPersons`, the
 * index churn of `churnCompanies`).
 */
export function buildDataset(
  seed: number,
  companies: number,
  persons: number,
  personReserveEvery = RESERVE_EVERY,
  companyReserveEvery = RESERVE_EVERY,
): Dataset {
  for (const [name, every] of [
    ['personReserveEvery', personReserveEvery],
    ['companyReserveEvery', companyReserveEvery],
  ] as const) {
    if (!Number.isInteger(every) || every < 2) throw new RangeError(`${name} must be an integer >= 2`);
  }
  if (!Number.isInteger(companies) || companies < 1 || companies > MAX_COMPANIES) {
    throw new RangeError(`companies must be an integer from 1 to ${MAX_COMPANIES}`);
  }
  if (!Number.isInteger(persons) || persons < 0 || persons > MAX_PERSONS) {
    throw new RangeError(`persons must be an integer from 0 to ${MAX_PERSONS}`);
  }
  const companyTable = buildCompanies(seed, companies, companyReserveEvery);
  return { seed, companies: companyTable, persons: buildPersons(seed, persons, companyTable, personReserveEvery) };
}

/** Seniority and department codes packed into a title code. */
export function titleSeniority(title: number): number {
  return Math.floor(title / (DEPARTMENTS.length * TITLE_VARIANTS));
}

export function titleDepartment(title: number): number {
  return Math.floor(title / TITLE_VARIANTS) % DEPARTMENTS.length;
}
