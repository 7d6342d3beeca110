/** Fingerprint of the canonical JSON of a request body: key order does not matter, any value change does. */
import { createHash } from 'node:crypto';

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    return `{${Object.keys(obj)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(obj[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** 16 hex characters (64 bits). */
export function bodyFingerprint(body: unknown): string {
  return createHash('sha256').update(canonical(body)).digest('hex').slice(0, 16);
}
