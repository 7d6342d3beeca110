/**
 * Builds the JSON records of companies and persons from the typed arrays and hashes (fields per
 * docs/api-assumptions.md).
 */
import type { Dataset } from './dataset.js';
import { titleDepartment, titleSeniority } from './dataset.js';
import {
  COUNTRIES,
  DEPARTMENTS,
  INDUSTRIES,
  REGIONS,
  SENIORITIES,
  TECHNOLOGIES,
  COUNTRY_REGION_CODE,
} from './dictionaries.js';
import { hash3 } from './hash.js';
import {
  CITIES,
  COMPANY_SUFFIXES,
  COMPANY_WORDS,
  DEGREES,
  FIRST_NAMES,
  JOB_TITLES,
  LANGUAGES,
  LAST_NAMES,
  SCHOOLS,
  SKILLS,
  TIME_ZONES,
} from './name-parts.js';
import type { RecordStyle } from './types.js';

export const PERSON_SEGMENTS = ['demographics', 'contacts', 'education', 'pastCompanies', 'skills', 'events'] as const;
export type PersonSegment = (typeof PERSON_SEGMENTS)[number];

type Json = Record<string, unknown>;

function pick<T>(list: readonly T[], h: number): T {
  return list[h % list.length]!;
}

/** ISO dates of ten years from 2016-01-01, built once (Date objects per record are slow). */
const DATES = Array.from({ length: 3650 }, (_, day) =>
  new Date(Date.UTC(2016, 0, 1) + day * 86_400_000).toISOString().slice(0, 10),
);

function isoDate(seed: number, slot: number, salt: number): string {
  return DATES[hash3(seed, slot, salt) % DATES.length]!;
}

function technologyList(mask: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < TECHNOLOGIES.length; i++) if ((mask & (1 << i)) !== 0) out.push(TECHNOLOGIES[i]!);
  return out;
}

export function companyId(slot: number): string {
  return `c_${slot.toString(36).padStart(5, '0')}`;
}

export function personId(slot: number): string {
  return `p_${slot.toString(36).padStart(6, '0')}`;
}

function companyName(seed: number, slot: number): string {
  return (
    `${pick(COMPANY_WORDS, hash3(seed, slot, 101))} ${pick(COMPANY_WORDS, hash3(seed, slot, 102))} ` +
    `${pick(COMPANY_SUFFIXES, hash3(seed, slot, 103))}`
  );
}

const EVENT_TYPES = ['funding', 'acquisition', 'ipo', 'hiring'] as const;

function companyDomain(data: Dataset, slot: number): string {
  const word = pick(
    ['acme', 'globex', 'nordwind', 'alpen', 'lumen', 'vertex', 'helix', 'orbit'],
    hash3(data.seed, slot, 104),
  );
  return `${word}-${slot.toString(36)}.${COUNTRIES[data.companies.country[slot]!]![0].toLowerCase()}`;
}

export function renderCompany(data: Dataset, slot: number): Json {
  const t = data.companies;
  const seed = data.seed;
  const techMask = t.technologies[slot]!;
  const industry = t.industry[slot]!;
  const country = t.country[slot]!;
  const events: Json[] = [];
  for (let k = (hash3(seed, slot, 110) % 3) - 1; k >= 0; k--)
    events.push({ type: pick(EVENT_TYPES, hash3(seed, slot, 111 + k)), date: isoDate(seed, slot, 120 + k) });
  return {
    id: companyId(slot),
    name: companyName(seed, slot),
    domain: companyDomain(data, slot),
    industry: INDUSTRIES[industry],
    country: COUNTRIES[country]![0],
    region: REGIONS[COUNTRY_REGION_CODE[country]!],
    headcount: t.headcount[slot],
    revenue: t.revenue[slot],
    foundedYear: t.foundedYear[slot],
    technologies: technologyList(techMask),
    sicCodes: [String(1000 + industry * 237)],
    naicsCodes: [String(510000 + industry * 1013)],
    events,
  };
}

function asciiSlug(s: string, fallback: string): string {
  const slug = s
    .normalize('NFKD')
    .replace(/[^A-Za-z]/g, '')
    .toLowerCase();
  return slug.length > 0 ? slug : fallback;
}

function segment(
  data: Dataset,
  slot: number,
  name: PersonSegment,
  first: string,
  last: string,
  domain: string,
): unknown {
  const seed = data.seed;
  switch (name) {
    case 'demographics':
      return {
        city: pick(CITIES, hash3(seed, slot, 201)),
        timeZone: pick(TIME_ZONES, hash3(seed, slot, 202)),
        languages: [pick(LANGUAGES, hash3(seed, slot, 203)), 'en'],
      };
    case 'contacts': {
      const local = `${asciiSlug(first, 'x')}.${asciiSlug(last, `p${slot}`)}`;
      const digits = String(hash3(seed, slot, 204)).padStart(10, '0');
      return {
        email: `${local}@${domain}`,
        phone: `+49 30 ${digits.slice(0, 7)}`,
        mobile: `+49 15${digits.slice(2, 10)}`,
      };
    }
    case 'education':
      return [
        {
          school: pick(SCHOOLS, hash3(seed, slot, 205)),
          degree: pick(DEGREES, hash3(seed, slot, 206)),
          year: 1980 + (hash3(seed, slot, 207) % 44),
        },
      ];
    case 'pastCompanies': {
      const c = hash3(seed, slot, 208) % data.companies.slots;
      return [
        {
          companyId: companyId(c),
          name: companyName(seed, c),
          title: pick(JOB_TITLES, hash3(seed, slot, 209)),
          from: isoDate(seed, slot, 210),
          to: isoDate(seed, slot, 211),
        },
      ];
    }
    case 'skills':
      return [pick(SKILLS, hash3(seed, slot, 212)), pick(SKILLS, hash3(seed, slot, 213) + 1)];
    case 'events':
      return [{ type: hash3(seed, slot, 214) % 2 === 0 ? 'job_change' : 'promotion', date: isoDate(seed, slot, 215) }];
  }
}

export function renderPerson(data: Dataset, slot: number, view: readonly PersonSegment[], withCompany = false): Json {
  const t = data.persons;
  const seed = data.seed;
  const firstName = pick(FIRST_NAMES, hash3(seed, slot, 301));
  const lastName = pick(LAST_NAMES, hash3(seed, slot, 302));
  const title = t.title[slot]!;
  const country = t.country[slot]!;
  const company = t.companySlot[slot]!;
  const record: Json = {
    id: personId(slot),
    firstName,
    lastName,
    fullName: `${firstName} ${lastName}`,
    jobTitle: JOB_TITLES[title],
    seniority: SENIORITIES[titleSeniority(title)],
    department: DEPARTMENTS[titleDepartment(title)],
    companyId: companyId(company),
    country: COUNTRIES[country]![0],
    region: REGIONS[COUNTRY_REGION_CODE[country]!],
  };
  if (withCompany)
    record.company = { id: companyId(company), name: companyName(seed, company), domain: companyDomain(data, company) };
  if (view.length > 0) {
    const domain = `${companyId(company).replace('_', '')}.example`;
    for (const name of view) record[name] = segment(data, slot, name, firstName, lastName, domain);
  }
  return record;
}

const snakeCache = new Map<string, string>();

function snakeKey(key: string): string {
  let out = snakeCache.get(key);
  if (out === undefined) {
    out = key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
    snakeCache.set(key, out);
  }
  return out;
}

/** recordStyle 'snake': company_id, job_title, founded_year, past_companies, time_zone, ... */
export function styleRecord(value: unknown, style: RecordStyle): unknown {
  if (style === 'camel') return value;
  if (Array.isArray(value)) return value.map((v) => styleRecord(v, style));
  if (value !== null && typeof value === 'object') {
    const out: Json = {};
    for (const [k, v] of Object.entries(value)) out[snakeKey(k)] = styleRecord(v, style);
    return out;
  }
  return value;
}
