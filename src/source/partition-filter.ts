/** A partition: the search's filter narrowed to a headcount range (and possibly to some countries). */
import type { Filter } from './api-terms.js';

/** A filter narrowed by headcount (and possibly country) whose journey stays under the depth limit. */
export interface Partition {
  filter: Filter;
  /** Free count at planning time. */
  count: number;
  headcount: { gte: number; lte: number };
  /** Set when one headcount value was split further by country. */
  countries?: string[];
}

/**
 * A headcount range of the filter being split, with its free count (the top one of an open filter holds what lies
 * above).
 */
export interface PieceRange {
  gte: number;
  lte: number;
  count: number;
  /** One headcount value cut further by country: the countries this piece holds (absent: all the filter's). */
  countries?: string[];
}

type Json = Record<string, unknown>;

function obj(value: unknown): Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {};
}

export function headcountBounds(filter: Filter): { gte: number | undefined; lte: number | undefined } {
  const hc = obj(obj(filter.company).headcount);
  return {
    gte: typeof hc.gte === 'number' ? hc.gte : undefined,
    lte: typeof hc.lte === 'number' ? hc.lte : undefined,
  };
}

/** The filter with company.headcount replaced; `lte` null leaves the upper end open (as the caller's filter had it). */
export function withHeadcount(filter: Filter, gte: number, lte: number | null): Filter {
  const company = obj(filter.company);
  const headcount: Json = { ...obj(company.headcount), gte };
  if (lte === null) delete headcount.lte;
  else headcount.lte = lte;
  return { ...filter, company: { ...company, headcount } };
}

/** The filter restricted to these countries (the caller's country include, if any, already intersected). */
export function withCountries(filter: Filter, countries: string[]): Filter {
  const company = obj(filter.company);
  const location = obj(company.location);
  return {
    ...filter,
    company: { ...company, location: { ...location, country: { ...obj(location.country), include: countries } } },
  };
}

export function existingCountries(filter: Filter): string[] | undefined {
  const include = obj(obj(obj(filter.company).location).country).include;
  return Array.isArray(include) ? include.filter((v): v is string => typeof v === 'string') : undefined;
}
