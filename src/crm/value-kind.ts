/**
 * What kind of value a mapped field writes, and which kinds a class of CRM field takes: the type part of a preflight.
 * A record path without a transform may hold anything (`any`), so only what the config fixes (a constant, a
 * converting transform) can be found incompatible before a run; the CRM still judges each value.
 */
import type { MappedField } from './field-mapping.js';
import type { TransformName } from './transforms.js';

export type ValueKind = 'any' | 'text' | 'number' | 'boolean' | 'date';

/** CRM field types grouped by what they take; `none`: nothing a mapping writes (ids, lookups, compound fields). */
export type FieldClass = 'text' | 'number' | 'boolean' | 'date' | 'none';

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
  if (/^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(value)) return 'date';
  return 'text';
}

export function valueKindOf(field: MappedField): ValueKind {
  if (field.constant !== undefined) return constantKind(field.constant);
  return field.transform === undefined ? 'any' : TRANSFORM_KINDS[field.transform];
}

/** Text fields take anything (numbers and booleans as text); dates also take epoch milliseconds. */
const ACCEPTS: Readonly<Record<FieldClass, readonly ValueKind[]>> = {
  text: ['any', 'text', 'number', 'boolean', 'date'],
  number: ['any', 'number'],
  boolean: ['any', 'boolean'],
  date: ['any', 'date', 'number'],
  none: [],
};

export function accepts(fieldClass: FieldClass, kind: ValueKind): boolean {
  return ACCEPTS[fieldClass].includes(kind);
}

/** How a problem names what the mapping writes: `the constant "x"`, `transform number`. */
export function describeSource(field: MappedField): string {
  if (field.constant !== undefined) return `the constant ${JSON.stringify(field.constant)}`;
  return field.transform === undefined ? `path ${field.from}` : `path ${field.from} (transform ${field.transform})`;
}
