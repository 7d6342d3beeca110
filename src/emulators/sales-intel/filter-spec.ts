/**
 * Validates a search/count body into a FilterSpec of lookup masks. Every failure names its body path, as the
 * spec's 400 requires (no `error` code). Keys and operators are those listed in docs/api-assumptions.md.
 */
import {
  COUNTRIES,
  DEPARTMENTS,
  DICTIONARY_CODES,
  type DictionaryName,
  INDUSTRIES,
  REGIONS,
  SENIORITIES,
} from './dictionaries.js';
import { JOB_TITLES } from './name-parts.js';

export interface ValidationDetail {
  path?: string;
  param?: string;
  message: string;
}

export type Range = readonly [number, number];

export interface CompanySpec {
  industry?: Uint8Array;
  country?: Uint8Array;
  region?: Uint8Array;
  headcount?: Range;
  revenue?: Range;
  foundedYear?: Range;
  /** Any-of bitmask over TECHNOLOGIES. */
  technologies?: number;
}

export interface PersonSpec {
  /** Mask over title codes (seniority, department and job title folded together). */
  title?: Uint8Array;
  country?: Uint8Array;
}

export interface SortField {
  field: 'headcount' | 'revenue';
  direction: 'ASC' | 'DESC';
}

export interface FilterSpec {
  company: CompanySpec;
  person: PersonSpec;
  sort: SortField[];
}

export type Entity = 'companies' | 'persons';

type Obj = Record<string, unknown>;

class Checker {
  readonly details: ValidationDetail[] = [];

  fail(path: string, message: string): undefined {
    this.details.push({ path, message });
    return undefined;
  }

  object(value: unknown, path: string, allowed: readonly string[]): Obj | undefined {
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      return this.fail(path, 'must be an object');
    const obj = value as Obj;
    for (const key of Object.keys(obj)) {
      if (!allowed.includes(key)) this.fail(path === '' ? key : `${path}.${key}`, 'unknown field');
    }
    return obj;
  }

  strings(value: unknown, path: string): string[] | undefined {
    if (!Array.isArray(value)) return this.fail(path, 'must be an array of strings');
    if (value.length === 0) return this.fail(path, 'must not be empty');
    let ok = true;
    value.forEach((v, i) => {
      if (typeof v !== 'string' || v.length === 0) ok = !!this.fail(`${path}[${i}]`, 'must be a non-empty string');
    });
    return ok ? (value as string[]) : undefined;
  }

  dictionary(value: unknown, path: string, name: DictionaryName, size: number): Uint8Array | undefined {
    const values = this.strings(value, path);
    if (!values) return undefined;
    const mask = new Uint8Array(size);
    const codes = DICTIONARY_CODES[name];
    values.forEach((v, i) => {
      const code = codes.get(v);
      if (code === undefined) this.fail(`${path}[${i}]`, `'${v}' is not a value of the ${name} dictionary`);
      else mask[code] = 1;
    });
    return mask;
  }

  range(value: unknown, path: string, integer: boolean): Range | undefined {
    const obj = this.object(value, path, ['gte', 'lte']);
    if (!obj) return undefined;
    if (obj.gte === undefined && obj.lte === undefined) return this.fail(path, 'needs gte or lte');
    const bound = (key: 'gte' | 'lte', dflt: number): number | undefined => {
      const v = obj[key];
      if (v === undefined) return dflt;
      const ok = typeof v === 'number' && Number.isFinite(v) && v >= 0 && (!integer || Number.isInteger(v));
      return ok
        ? v
        : this.fail(`${path}.${key}`, integer ? 'must be a non-negative integer' : 'must be a non-negative number');
    };
    const gte = bound('gte', 0);
    const lte = bound('lte', Number.MAX_VALUE);
    if (gte === undefined || lte === undefined) return undefined;
    if (gte > lte) return this.fail(path, 'gte must not be greater than lte');
    return [gte, lte];
  }
}

const COMPANY_KEYS = ['industry', 'location', 'headcount', 'revenue', 'foundedYear', 'technologies'] as const;
const PERSON_KEYS = ['seniority', 'department', 'jobTitle', 'location'] as const;

function parseCompany(c: Checker, value: unknown): CompanySpec {
  const spec: CompanySpec = {};
  const obj = c.object(value, 'company', COMPANY_KEYS);
  if (!obj) return spec;
  if (obj.industry !== undefined) {
    const ind = c.object(obj.industry, 'company.industry', ['include']);
    if (ind) spec.industry = c.dictionary(ind.include, 'company.industry.include', 'industry', INDUSTRIES.length);
  }
  if (obj.location !== undefined) {
    const loc = c.object(obj.location, 'company.location', ['type', 'country', 'region']);
    if (loc) {
      if (loc.type !== undefined && loc.type !== 'hq') c.fail('company.location.type', "must be 'hq'");
      if (loc.country !== undefined) {
        const country = c.object(loc.country, 'company.location.country', ['include']);
        if (country)
          spec.country = c.dictionary(country.include, 'company.location.country.include', 'country', COUNTRIES.length);
      }
      if (loc.region !== undefined) {
        const region = c.object(loc.region, 'company.location.region', ['include']);
        if (region)
          spec.region = c.dictionary(region.include, 'company.location.region.include', 'region', REGIONS.length);
      }
    }
  }
  if (obj.headcount !== undefined) spec.headcount = c.range(obj.headcount, 'company.headcount', true);
  if (obj.revenue !== undefined) spec.revenue = c.range(obj.revenue, 'company.revenue', false);
  if (obj.foundedYear !== undefined) spec.foundedYear = c.range(obj.foundedYear, 'company.foundedYear', true);
  if (obj.technologies !== undefined) {
    const tech = c.object(obj.technologies, 'company.technologies', ['include']);
    const mask = tech && c.dictionary(tech.include, 'company.technologies.include', 'technology', 32);
    if (mask) spec.technologies = mask.reduce((acc, bit, i) => (bit ? acc | (1 << i) : acc), 0) >>> 0;
  }
  return spec;
}

function parsePerson(c: Checker, value: unknown): PersonSpec {
  const spec: PersonSpec = {};
  const obj = c.object(value, 'person', PERSON_KEYS);
  if (!obj) return spec;
  const include = (key: string): unknown => c.object(obj[key], `person.${key}`, ['include'])?.include;
  const seniority =
    obj.seniority === undefined
      ? undefined
      : c.dictionary(include('seniority'), 'person.seniority.include', 'seniority', SENIORITIES.length);
  const department =
    obj.department === undefined
      ? undefined
      : c.dictionary(include('department'), 'person.department.include', 'department', DEPARTMENTS.length);
  const titles =
    obj.jobTitle === undefined
      ? undefined
      : c.strings(include('jobTitle'), 'person.jobTitle.include')?.map((t) => t.toLowerCase());
  if (obj.location !== undefined) {
    const loc = c.object(obj.location, 'person.location', ['country']);
    const country =
      loc?.country === undefined ? undefined : c.object(loc.country, 'person.location.country', ['include']);
    if (country)
      spec.country = c.dictionary(country.include, 'person.location.country.include', 'country', COUNTRIES.length);
  }
  if (seniority || department || titles) {
    const mask = new Uint8Array(JOB_TITLES.length);
    const perSeniority = JOB_TITLES.length / SENIORITIES.length;
    const variants = perSeniority / DEPARTMENTS.length;
    JOB_TITLES.forEach((title, code) => {
      const s = Math.floor(code / perSeniority);
      const d = Math.floor(code / variants) % DEPARTMENTS.length;
      const lower = title.toLowerCase();
      mask[code] =
        (!seniority || seniority[s]) &&
        (!department || department[d]) &&
        (!titles || titles.some((t) => lower.includes(t)))
          ? 1
          : 0;
    });
    spec.title = mask;
  }
  return spec;
}

function parseOptions(c: Checker, value: unknown): SortField[] {
  const obj = c.object(value, 'options', ['sortFields']);
  if (!obj || obj.sortFields === undefined) return [];
  if (!Array.isArray(obj.sortFields)) return c.fail('options.sortFields', 'must be an array') ?? [];
  const out: SortField[] = [];
  obj.sortFields.forEach((raw, i) => {
    const path = `options.sortFields[${i}]`;
    const f = c.object(raw, path, ['field', 'direction']);
    if (!f) return;
    const okField = f.field === 'headcount' || f.field === 'revenue';
    const okDir = f.direction === 'ASC' || f.direction === 'DESC';
    if (!okField) c.fail(`${path}.field`, "must be 'headcount' or 'revenue'");
    if (!okDir) c.fail(`${path}.direction`, "must be 'ASC' or 'DESC'");
    if (okField && okDir)
      out.push({ field: f.field as SortField['field'], direction: f.direction as SortField['direction'] });
  });
  return out;
}

export type ParseResult = { ok: true; spec: FilterSpec } | { ok: false; details: ValidationDetail[] };

/** Validates a parsed JSON body for the given entity's search or count. */
export function parseFilterBody(entity: Entity, body: unknown): ParseResult {
  const c = new Checker();
  const top = c.object(body, '', entity === 'persons' ? ['company', 'person', 'options'] : ['company', 'options']);
  const spec: FilterSpec = { company: {}, person: {}, sort: [] };
  if (top) {
    if (top.company !== undefined) spec.company = parseCompany(c, top.company);
    if (top.person !== undefined) spec.person = parsePerson(c, top.person);
    if (top.options !== undefined) spec.sort = parseOptions(c, top.options);
  }
  if (c.details.length > 0) return { ok: false, details: c.details };
  return { ok: true, spec };
}
