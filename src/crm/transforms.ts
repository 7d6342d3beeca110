import type { CrmValue } from './crm-record.js';

/** Value transforms a mapped field may name in the config. */
export const TRANSFORMS = [
  'string',
  'number',
  'lowercase',
  'uppercase',
  'trim',
  'join',
  'first',
  'domain',
  'date',
] as const;
export type TransformName = (typeof TRANSFORMS)[number];

export function isTransformName(name: string): name is TransformName {
  return (TRANSFORMS as readonly string[]).includes(name);
}

/** A value a transform cannot convert (e.g. `number` of "abc"): the record is rejected, the others go on. */
export class TransformFailure extends Error {}

/** `undefined` means "no value": the field is left out of the write rather than clearing the CRM's value. */
export type MappedValue = CrmValue | undefined;

/** Default conversion of any record value to a CRM value: arrays joined, objects as JSON, empty → no value. */
function toCrmValue(value: unknown): MappedValue {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (Array.isArray(value)) return value.length === 0 ? undefined : joinValues(value);
  return JSON.stringify(value);
}

function joinValues(values: unknown[]): string {
  return values
    .map((v) => (v !== null && typeof v === 'object' ? JSON.stringify(v) : toCrmValue(v)))
    .filter((v) => v !== undefined && v !== '')
    .join(', ');
}

function asText(value: unknown): string | undefined {
  const v = toCrmValue(value);
  return v === undefined || v === null ? undefined : String(v);
}

function hostOf(text: string): string | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  try {
    const url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) ? trimmed : `http://${trimmed}`);
    return url.hostname.replace(/^www\./, '') || undefined;
  } catch {
    throw new TransformFailure('not a URL or domain');
  }
}

function toDate(value: unknown): string | undefined {
  if (value === null || value === undefined || value === '') return undefined;
  const date = typeof value === 'number' || typeof value === 'string' ? new Date(value) : undefined;
  if (date === undefined || Number.isNaN(date.getTime())) throw new TransformFailure('not a date');
  return date.toISOString().slice(0, 10);
}

function toNumber(value: unknown): number | undefined {
  if (value === null || value === undefined || value === '') return undefined;
  const n = typeof value === 'number' ? value : typeof value === 'string' ? Number(value.trim()) : Number.NaN;
  if (!Number.isFinite(n)) throw new TransformFailure('not a number');
  return n;
}

const apply: Record<TransformName, (value: unknown) => MappedValue> = {
  string: asText,
  number: toNumber,
  lowercase: (v) => asText(v)?.toLowerCase(),
  uppercase: (v) => asText(v)?.toUpperCase(),
  trim: (v) => asText(v)?.trim(),
  join: (v) => (Array.isArray(v) ? (v.length === 0 ? undefined : joinValues(v)) : toCrmValue(v)),
  first: (v) => toCrmValue(Array.isArray(v) ? v[0] : v),
  domain: (v) => {
    const text = asText(v);
    return text === undefined ? undefined : hostOf(text);
  },
  date: toDate,
};

export function applyTransform(name: TransformName | undefined, value: unknown): MappedValue {
  const out = name === undefined ? toCrmValue(value) : apply[name](value);
  return out === '' ? undefined : out;
}
