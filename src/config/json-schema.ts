import { z } from 'zod';
import { configSchema } from './schema.js';

type JsonSchema = Record<string, unknown>;

/** A scalar written as `${VAR}` / `${VAR:-default}`: typed only after interpolation, so any such string is fine. */
const VARIABLE = '\\$\\{[A-Za-z_][A-Za-z0-9_]*(:-[^}]*)?\\}';
const INTERPOLATED: JsonSchema = { type: 'string', pattern: VARIABLE };
const SECRET: JsonSchema = {
  type: 'string',
  pattern: `^${VARIABLE}$`,
  description: 'secret: only from the environment, as ${VAR}',
};

const CONSTRAINTS = ['format', 'pattern', 'enum'];

/**
 * Every constrained scalar also accepts an interpolated string, so editors do not flag `${SI_BASE_URL}`; secrets
 * accept only that. Keys (`propertyNames`) and discriminators (`const`) are never interpolated.
 */
function allowInterpolation(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(allowInterpolation);
  if (node === null || typeof node !== 'object') return node;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node))
    out[key] = key === 'propertyNames' ? value : allowInterpolation(value);
  if (out.secret === true) return SECRET;
  const constrained =
    out.type === 'integer' || out.type === 'number' || out.type === 'boolean' || CONSTRAINTS.some((k) => k in out);
  if (!constrained || 'properties' in out || 'items' in out) return out;
  const { default: dflt, description, ...leaf } = out;
  return {
    anyOf: [leaf, INTERPOLATED],
    ...(dflt === undefined ? {} : { default: dflt }),
    ...(description === undefined ? {} : { description }),
  };
}

/** The config's JSON Schema (draft 2020-12) for editor completion; describes what a user writes (the input side). */
export function configJsonSchema(): JsonSchema {
  const schema = z.toJSONSchema(configSchema(), { io: 'input' }) as JsonSchema;
  return { ...(allowInterpolation(schema) as JsonSchema), title: 'prospect-sync configuration' };
}
