/** Validates the query string of the search and count routes exactly per the spec (never clamps). */
import type { ValidationDetail } from './filter-spec.js';
import { PERSON_SEGMENTS, type PersonSegment } from './record-render.js';

export interface SearchQuery {
  limit: number;
  mode: 'cursor' | 'offset';
  cursor: string | undefined;
  offset: number;
  view: PersonSegment[];
}

export type QueryResult = { ok: true; query: SearchQuery } | { ok: false; details: ValidationDetail[] };

const INTEGER = /^(0|[1-9][0-9]*)$/;

function integerParam(
  details: ValidationDetail[],
  param: string,
  raw: string,
  min: number,
  max: number,
): number | undefined {
  const value = INTEGER.test(raw) ? Number(raw) : NaN;
  if (Number.isSafeInteger(value) && value >= min && value <= max) return value;
  details.push({ param, message: `${param} must be an integer from ${min} to ${max}` });
  return undefined;
}

export function parseSearchQuery(params: URLSearchParams, kind: 'companies' | 'persons' | 'count'): QueryResult {
  const details: ValidationDetail[] = [];
  const allowed =
    kind === 'count' ? [] : kind === 'persons' ? ['limit', 'cursor', 'offset', 'view'] : ['limit', 'cursor', 'offset'];
  const seen = new Set<string>();
  for (const name of params.keys()) {
    if (seen.has(name)) continue;
    seen.add(name);
    if (!allowed.includes(name)) {
      details.push({
        param: name,
        message: kind === 'count' ? 'count endpoints take no query parameters' : `unknown query parameter ${name}`,
      });
    } else if (params.getAll(name).length > 1) details.push({ param: name, message: `${name} may be given once` });
  }
  const query: SearchQuery = { limit: 50, mode: 'cursor', cursor: undefined, offset: 0, view: [] };
  const limit = params.get('limit');
  const cursor = params.get('cursor');
  const offset = params.get('offset');
  const view = params.get('view');
  if (kind !== 'count') {
    if (limit !== null) query.limit = integerParam(details, 'limit', limit, 1, 100) ?? 50;
    if (cursor !== null && offset !== null)
      details.push({ param: 'cursor', message: 'cursor and offset cannot be used together' });
    if (cursor !== null) {
      if (cursor.length === 0 || cursor.length > 200)
        details.push({ param: 'cursor', message: 'cursor must be 1 to 200 characters' });
      query.cursor = cursor;
    }
    if (offset !== null) {
      query.mode = 'offset';
      query.offset = integerParam(details, 'offset', offset, 0, 10_000) ?? 0;
    }
    if (view !== null && kind === 'persons') {
      const names = view.split(',');
      for (const name of names) {
        if (!(PERSON_SEGMENTS as readonly string[]).includes(name)) {
          details.push({
            param: 'view',
            message: `view must be a comma-separated list of ${PERSON_SEGMENTS.join(', ')}`,
          });
          break;
        }
      }
      query.view = PERSON_SEGMENTS.filter((s) => names.includes(s));
    }
  }
  return details.length > 0 ? { ok: false, details } : { ok: true, query };
}
