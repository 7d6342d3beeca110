/**
 * A dictionary answer read whatever its shape: the spec does not show it, and implementations differ. Accepted: a
 * top-level array, or the first array under `data`, `values`, `items` or `results` (also one level inside `data`);
 * entries as strings, or objects whose value is `value`, `code`, `id` or `name` (first present) with an optional label.
 */
import { SourceProtocolError } from './errors.js';

export interface DictionaryEntry {
  /** What a filter accepts. */
  value: string;
  /** What a person reads, when the API gives one. */
  label?: string;
}

const LIST_KEYS = ['data', 'values', 'items', 'results'] as const;
const VALUE_KEYS = ['value', 'code', 'id', 'name'] as const;
const LABEL_KEYS = ['label', 'name', 'displayName', 'description'] as const;

function listOf(body: unknown): unknown[] | undefined {
  if (Array.isArray(body)) return body;
  if (body === null || typeof body !== 'object') return undefined;
  const record = body as Record<string, unknown>;
  for (const key of LIST_KEYS) if (Array.isArray(record[key])) return record[key];
  const data = record.data;
  return data !== null && typeof data === 'object' && !Array.isArray(data) ? listOf(data) : undefined;
}

const scalar = (v: unknown): string | undefined =>
  typeof v === 'string' || typeof v === 'number' ? String(v) : undefined;

function entryOf(raw: unknown, index: number): DictionaryEntry {
  const plain = scalar(raw);
  if (plain !== undefined) return { value: plain };
  if (raw !== null && typeof raw === 'object') {
    const record = raw as Record<string, unknown>;
    const valueKey = VALUE_KEYS.find((k) => scalar(record[k]) !== undefined);
    if (valueKey) {
      const labelKey = LABEL_KEYS.find((k) => k !== valueKey && scalar(record[k]) !== undefined);
      return { value: scalar(record[valueKey])!, ...(labelKey ? { label: scalar(record[labelKey])! } : {}) };
    }
  }
  throw new SourceProtocolError(`dictionary entry ${index} has none of ${VALUE_KEYS.join(', ')}`);
}

export function dictionaryEntries(body: unknown, name: string): DictionaryEntry[] {
  const list = listOf(body);
  if (!list)
    throw new SourceProtocolError(
      `the ${name} dictionary answer holds no list (looked at the top level and ${LIST_KEYS.join(', ')})`,
    );
  return list.map(entryOf);
}
