/**
 * docs/reference/configuration.md from the config schema (src/config/schema.ts and each CRM port's block): every
 * key with its type, default and description, read from the schema's JSON Schema (what a user writes).
 */
import { z } from 'zod';
import { configSchema } from '../../src/config/schema.js';
import { code, generatedBanner, table } from './markdown.js';

interface Node {
  type?: string | string[];
  properties?: Record<string, Node>;
  required?: string[];
  additionalProperties?: Node | boolean;
  items?: Node;
  anyOf?: Node[];
  oneOf?: Node[];
  const?: unknown;
  enum?: unknown[];
  default?: unknown;
  description?: string;
  format?: string;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minItems?: number;
  secret?: boolean;
}

interface Row {
  key: string;
  type: string;
  dflt: string;
  description: string;
  /** The branch of a discriminated union the key belongs to (`type: hubspot`), shown as its own table. */
  group?: string;
}

/** The placeholder a map's keys are shown as, by the map's own key. */
const MAP_KEYS: Record<string, string> = { destinations: '<name>', fields: '<CRM field>', setFields: '<CRM field>' };

/** An object that passes keys it does not name through (the filter's insides): shown as one key, not walked. */
const open = (node: Node): boolean => node.additionalProperties !== undefined && node.additionalProperties !== false;
const alternatives = (node: Node): Node[] => node.anyOf ?? node.oneOf ?? [];
const hasProperties = (node: Node): boolean => node.properties !== undefined;
const mapOf = (node: Node): Node | undefined =>
  typeof node.additionalProperties === 'object' && Object.keys(node.additionalProperties).length > 0
    ? node.additionalProperties
    : undefined;
/** A union whose branches are objects told apart by a constant `type` (the destinations). */
const discriminated = (node: Node): Node[] | undefined => {
  const branches = alternatives(node);
  return branches.length > 0 && branches.every((b) => b.properties?.type?.const !== undefined) ? branches : undefined;
};

/** A number's bounds as a user reads them; zod's safe-integer bounds are no bound to a user. */
function range(node: Node): string {
  const safe = (n: number | undefined): number | undefined =>
    n === undefined || Math.abs(n) >= Number.MAX_SAFE_INTEGER ? undefined : n;
  const [min, max] = [safe(node.minimum), safe(node.maximum)];
  const gt = node.type === 'integer' && node.exclusiveMinimum !== undefined ? undefined : node.exclusiveMinimum;
  const low = node.type === 'integer' && node.exclusiveMinimum !== undefined ? node.exclusiveMinimum + 1 : min;
  if (low !== undefined && max !== undefined) return `${low}-${max}`;
  const parts = [
    low === undefined ? undefined : `>= ${low}`,
    gt === undefined ? undefined : `> ${gt}`,
    max === undefined ? undefined : `<= ${max}`,
    safe(node.exclusiveMaximum) === undefined ? undefined : `< ${node.exclusiveMaximum}`,
  ];
  return parts.filter(Boolean).join(', ');
}

function typeOf(node: Node): string {
  if (node.secret === true) return 'secret: `${VAR}` only';
  if (node.const !== undefined) return code(JSON.stringify(node.const));
  if (node.enum !== undefined) return node.enum.map((v) => code(String(v))).join(' | ');
  if (Array.isArray(node.type)) return node.type.join(' or ');
  const branches = alternatives(node);
  if (branches.length > 0) return branches.map(typeOf).join(', or ');
  const map = mapOf(node);
  if (map !== undefined) return `map of name to ${typeOf(map)}`;
  if (hasProperties(node)) {
    const keys = Object.keys(node.properties ?? {});
    if (!open(node)) return `{${keys.join(', ')}}`;
    return keys.length === 0 ? 'object (any keys)' : `object (${keys.join(', ')}; other keys passed through)`;
  }
  switch (node.type) {
    case 'string':
      if (node.format === 'uri') return 'http(s) URL';
      return node.pattern === undefined ? 'string' : `string matching ${code(node.pattern)}`;
    case 'integer':
    case 'number':
      return [node.type, range(node)].filter(Boolean).join(' ');
    case 'array': {
      const at = node.minItems === undefined || node.minItems === 0 ? '' : ` (at least ${node.minItems})`;
      return `list of ${node.items === undefined ? 'values' : typeOf(node.items)}${at}`;
    }
    default:
      return node.type ?? 'any';
  }
}

function defaultOf(node: Node, required: boolean): string {
  const dflt = node.default;
  if (dflt === undefined) return required ? 'required' : '';
  if (typeof dflt === 'object' && dflt !== null && Object.keys(dflt).length === 0 && !Array.isArray(dflt)) return '';
  return code(typeof dflt === 'string' ? dflt : JSON.stringify(dflt));
}

/** Rows for `node` at `key` and every key below it, in schema order. */
function walk(node: Node, key: string, required: boolean, rows: Row[], group?: string): void {
  const row = (type: string): void => {
    rows.push({
      key,
      type,
      dflt: defaultOf(node, required),
      description: node.description ?? '',
      ...(group ? { group } : {}),
    });
  };
  const below = (parent: Node, prefix: string, branch = group): void => {
    for (const [name, child] of Object.entries(parent.properties ?? {}))
      walk(child, `${prefix}.${name}`, parent.required?.includes(name) ?? false, rows, branch);
  };
  const leaf = key.split('.').at(-1) ?? key;
  const map = mapOf(node);
  if (map !== undefined) {
    const placeholder = MAP_KEYS[leaf] ?? '<key>';
    row(`map of ${placeholder} to ${discriminated(map) ? 'one of the blocks below' : typeOf(map)}`);
    const branches = discriminated(map);
    if (branches)
      for (const b of branches) below(b, `${key}.${placeholder}`, code(`type: ${String(b.properties?.type?.const)}`));
    else walkInside(map, `${key}.${placeholder}`, rows, group);
    return;
  }
  if (node.type === 'array' && node.items !== undefined && hasProperties(node.items)) {
    row(`list of objects${node.minItems ? ` (at least ${node.minItems})` : ''}`);
    below(node.items, `${key}[]`);
    return;
  }
  // An object without a description of its own is shown through its keys alone.
  if (!hasProperties(node) || open(node) || node.description !== undefined) row(typeOf(node));
  if (!open(node)) walkInside(node, key, rows, group);
}

/** The keys inside an object, or inside the object branches of a union (a key two branches share: once). */
function walkInside(node: Node, key: string, rows: Row[], group?: string): void {
  const objects = hasProperties(node) ? [node] : alternatives(node).filter(hasProperties);
  const seen = new Set<string>();
  for (const object of objects)
    for (const [name, child] of Object.entries(object.properties ?? {})) {
      if (seen.has(name)) continue;
      seen.add(name);
      walk(child, `${key}.${name}`, object.required?.includes(name) ?? false, rows, group);
    }
}

function section(name: string, node: Node, required: boolean): string {
  const rows: Row[] = [];
  walk(node, name, required, rows);
  const parts = [`## ${code(name)}`, ''];
  // The section's own row says what the whole block is, before the table of its keys.
  const own = rows[0]?.key === name && rows.length > 1 ? rows.shift() : undefined;
  if (own) parts.push(`${own.description} (${own.dflt || 'optional'})`.trim(), '');
  for (const group of new Set(rows.map((r) => r.group))) {
    if (group !== undefined) parts.push(`### ${group}`, '');
    const list = rows.filter((r) => r.group === group);
    parts.push(
      table(
        ['key', 'type', 'default', 'description'],
        list.map((r) => [code(r.key), r.type, r.dflt, r.description]),
      ),
      '',
    );
  }
  return parts.join('\n');
}

/** Every row of the reference, for tests (each key has a description). */
export function configurationRows(): Row[] {
  const root = configJson();
  return Object.entries(root.properties ?? {}).flatMap(([name, node]) => {
    const rows: Row[] = [];
    walk(node, name, root.required?.includes(name) ?? false, rows);
    return rows;
  });
}

const configJson = (): Node => z.toJSONSchema(configSchema(), { io: 'input' }) as Node;

export function configurationReference(): string {
  const root = configJson();
  const sections = Object.entries(root.properties ?? {}).map(([name, node]) =>
    section(name, node, root.required?.includes(name) ?? false),
  );
  return [
    generatedBanner('Configuration reference', '`src/config/schema.ts` and `src/crm/<crm>/destination.ts`'),
    'Every key of the config file: its type, default and meaning. How to write the file (`${VAR}` interpolation,',
    'secrets, errors, the shipped configs, filters): [configuration.md](../configuration.md).',
    '',
    ...sections,
  ].join('\n');
}
