/**
 * `POST /crm/v3/objects/{object}/search` as HubSpot answers it, for the filters prospect-sync sends and a little
 * more: filter groups (OR) of filters (AND) with EQ, NEQ, GT, GTE, LT, LTE, HAS_PROPERTY, NOT_HAS_PROPERTY; sorts by
 * `{propertyName, direction}` (HubSpot's search guide). The published spec's string form is accepted, but the guide
 * never says what it means, so it sorts nothing here: without an object sort the order is unspecified (a stable
 * shuffle, not the ids' order), the stricter reading. `after` as an offset refused past HubSpot's cap on results;
 * pages no larger than HubSpot's. A filter or sort on an unknown property is refused (400).
 */
import { validationError } from './hubspot-http-error.js';
import type { ObjectTable, StoredObject } from './hubspot-store.js';
import { view, type BatchAnswer } from './object-batch.js';

const MAX_LIMIT = 200;
const MAX_RESULTS = 10_000;
const MAX_GROUPS = 5;
const MAX_FILTERS = 6;

interface Filter {
  propertyName: string;
  operator: string;
  value?: string;
}

const OPERATORS = new Set(['EQ', 'NEQ', 'GT', 'GTE', 'LT', 'LTE', 'HAS_PROPERTY', 'NOT_HAS_PROPERTY']);

/** Numbers (ids, counts) compare as numbers, anything else as text; bools are the strings "true" / "false". */
function compare(a: string, b: string): number {
  const x = Number(a);
  const y = Number(b);
  if (a !== '' && b !== '' && Number.isFinite(x) && Number.isFinite(y)) return x - y;
  return a.localeCompare(b);
}

function matches(object: StoredObject, f: Filter): boolean {
  const raw = f.propertyName === 'hs_object_id' ? object.id : object.properties[f.propertyName];
  const has = raw !== undefined && raw !== '';
  if (f.operator === 'HAS_PROPERTY') return has;
  if (f.operator === 'NOT_HAS_PROPERTY') return !has;
  const value = f.value ?? '';
  if (f.operator === 'NEQ') return !has || raw.toLowerCase() !== value.toLowerCase();
  if (!has) return false;
  if (f.operator === 'EQ') return raw.toLowerCase() === value.toLowerCase();
  const c = compare(raw, value);
  return f.operator === 'GT' ? c > 0 : f.operator === 'GTE' ? c >= 0 : f.operator === 'LT' ? c < 0 : c <= 0;
}

function known(table: ObjectTable, name: string): void {
  if (!table.properties.has(name))
    throw validationError(`There was a problem with the request: property ${name} does not exist`);
}

function filtersOf(table: ObjectTable, groups: unknown): Filter[][] {
  if (groups === undefined) return [];
  if (!Array.isArray(groups) || groups.length > MAX_GROUPS)
    throw validationError(`filterGroups: an array of at most ${MAX_GROUPS} groups`);
  return groups.map((g: unknown) => {
    const filters = (g as { filters?: unknown } | null)?.filters;
    if (!Array.isArray(filters) || filters.length > MAX_FILTERS)
      throw validationError(`filters: an array of at most ${MAX_FILTERS} filters in each group`);
    return filters.map((f: unknown) => {
      const { propertyName, operator, value } = (f ?? {}) as Record<string, unknown>;
      if (typeof propertyName !== 'string' || typeof operator !== 'string' || !OPERATORS.has(operator))
        throw validationError('each filter needs a propertyName and a known operator');
      known(table, propertyName);
      if (value !== undefined && typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean')
        throw validationError(`filter on ${propertyName}: value must be a string`);
      return { propertyName, operator, ...(value === undefined ? {} : { value: String(value) }) };
    });
  });
}

/** An order that is stable across calls but not the ids' own (an FNV-1a hash of the id). */
function shuffled(id: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  return `h${(h >>> 0).toString(16).padStart(8, '0')}`;
}

function sortOf(table: ObjectTable, sorts: unknown): { name: string; descending: boolean } | undefined {
  if (sorts === undefined || (Array.isArray(sorts) && sorts.length === 0)) return undefined;
  const first: unknown = Array.isArray(sorts) ? sorts[0] : undefined;
  if (typeof first === 'string') {
    known(table, first);
    return undefined;
  }
  const sort =
    typeof (first as { propertyName?: unknown } | undefined)?.propertyName === 'string'
      ? {
          name: (first as { propertyName: string }).propertyName,
          descending: (first as { direction?: unknown }).direction === 'DESCENDING',
        }
      : undefined;
  if (sort === undefined) throw validationError('sorts: property names or {propertyName, direction}');
  known(table, sort.name);
  return sort;
}

export function search(table: ObjectTable, body: unknown): BatchAnswer {
  const request = (body ?? {}) as Record<string, unknown>;
  const limit = request.limit === undefined ? 10 : Number(request.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT)
    throw validationError(`limit: between 1 and ${MAX_LIMIT}`);
  const offset = request.after === undefined ? 0 : Number(request.after);
  if (!Number.isInteger(offset) || offset < 0) throw validationError('after: a paging cursor token');
  if (offset + limit > MAX_RESULTS)
    throw validationError(`Search results are limited to ${MAX_RESULTS}: narrow the filters to page further`);
  const groups = filtersOf(table, request.filterGroups);
  const sort = sortOf(table, request.sorts);
  const wanted = Array.isArray(request.properties)
    ? request.properties.filter((p): p is string => typeof p === 'string')
    : ['email', 'firstname', 'lastname'];
  const hits = [...table.objects.values()].filter(
    (o) => groups.length === 0 || groups.some((g) => g.every((f) => matches(o, f))),
  );
  const keyOf = (o: StoredObject): string =>
    sort === undefined ? shuffled(o.id) : sort.name === 'hs_object_id' ? o.id : (o.properties[sort.name] ?? '');
  hits.sort((a, b) => compare(keyOf(a), keyOf(b)) * (sort?.descending ? -1 : 1));
  const page = hits.slice(offset, offset + limit);
  const results = page.map((o) =>
    view(o, Object.fromEntries(wanted.filter((n) => table.properties.has(n)).map((n) => [n, o.properties[n] ?? null]))),
  );
  const next = offset + limit < hits.length ? String(offset + limit) : undefined;
  return {
    status: 200,
    body: {
      total: hits.length,
      results,
      ...(next === undefined ? {} : { paging: { next: { after: next, link: `?after=${next}` } } }),
    },
  };
}
