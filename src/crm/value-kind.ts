/**
 * What kind of value a mapped field writes, and which kinds a class of CRM field takes: the type part of a preflight.
 * A record path without a transform may hold anything (`any`), so only what the config fixes (a constant, a
 * converting transform) can be found incompatible before a run; the CRM still judges each value.
 */
import type { MappedField } from './field-mapping.js';
import type { TransformName } from './transforms.js';

/**
 * `date`: a day (YYYY-MM-DD); `datetime`: an instant with its time of day; `now`: the time of the run (`$now`),
 * written as a day into a field that holds days and as the instant elsewhere (src/crm/leave-value.ts).
 */
export type ValueKind = 'any' | 'text' | 'number' | 'boolean' | 'date' | 'datetime' | 'now';

/**
 * CRM field types grouped by what they take; `date` holds a day (HubSpot: midnight UTC), `datetime` an instant;
 * `none`: nothing a mapping writes (ids, lookups, compound fields).
 */
export type FieldClass = 'text' | 'number' | 'boolean' | 'date' | 'datetime' | 'none';

const DAY_MS = 86_400_000;

const TRANSFORM_KINDS: Readonly<Record<TransformName, ValueKind>> = {
  string: 'any',
  trim: 'any',
  first: 'any',
  join: 'text',
  lowercase: 'text',
  uppercase: 'text',
  domain: 'text',
  number: 'number',
  date: 'date',
};

export function constantKind(value: string | number | boolean): ValueKind {
  if (typeof value === 'number') return 'number';
  if (typeof value === 'boolean' || value === 'true' || value === 'false') return 'boolean';
  if (value.trim() !== '' && Number.isFinite(Number(value))) return 'number';
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) return 'date';
  if (/^\d{4}-\d{2}-\d{2}[T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?$/.test(value)) return 'datetime';
  return 'text';
}

export function valueKindOf(field: MappedField): ValueKind {
  if (field.constant !== undefined) return constantKind(field.constant);
  return field.transform === undefined ? 'any' : TRANSFORM_KINDS[field.transform];
}

/** Text fields take anything (numbers and booleans as text); dates also take epoch milliseconds. */
const ACCEPTS: Readonly<Record<FieldClass, readonly ValueKind[]>> = {
  text: ['any', 'text', 'number', 'boolean', 'date', 'datetime', 'now'],
  number: ['any', 'number'],
  boolean: ['any', 'boolean'],
  date: ['any', 'date', 'number', 'now'],
  datetime: ['any', 'date', 'datetime', 'number', 'now'],
  none: [],
};

/**
 * Whether a field of this class takes a value of this kind; `constant`, the value when the config fixes it: epoch
 * milliseconds into a field holding days must be a midnight UTC.
 */
export function accepts(fieldClass: FieldClass, kind: ValueKind, constant?: unknown): boolean {
  if (fieldClass === 'date' && kind === 'number' && constant !== undefined) return Number(constant) % DAY_MS === 0;
  return ACCEPTS[fieldClass].includes(kind);
}

/** Why a value does not fit a field holding days, when it is for a time of day. */
export function dayHint(fieldClass: FieldClass, kind: ValueKind): string {
  return fieldClass === 'date' && (kind === 'datetime' || kind === 'number')
    ? ' (a date field holds a day: YYYY-MM-DD, or epoch milliseconds at midnight UTC)'
    : '';
}

/** How a problem names what the mapping writes: `the constant "x"`, `transform number`. */
export function describeSource(field: MappedField): string {
  if (field.constant !== undefined) return `the constant ${JSON.stringify(field.constant)}`;
  return field.transform === undefined ? `path ${field.from}` : `path ${field.from} (transform ${field.transform})`;
}
