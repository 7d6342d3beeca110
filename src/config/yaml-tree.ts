/**
 * Turns a YAML document into plain values while keeping where each value came from, and interpolates ${VAR}s
 * scalar by scalar (so an error names the line of the scalar, and a variable's value can never change the
 * document's structure).
 */
import { isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument, Scalar, type Document, type Node } from 'yaml';
import type { ConfigIssue } from './config-error.js';
import { interpolate } from './interpolate.js';
import { isSecretPath } from './schema.js';

export type ConfigPath = (string | number)[];

export interface Place {
  line: number;
  column: number;
}

/**
 * The place of a config path in the file: its value, or with `'key'` its key. For a path that is not in the
 * file (a missing key), the key of its nearest existing parent.
 */
export type Locate = (path: readonly PropertyKey[], part?: 'key' | 'value') => Place;

export interface YamlTree {
  value: unknown;
  locate: Locate;
  issues: ConfigIssue[];
  /** YAML warnings (e.g. an unknown tag): reported, not fatal. */
  warnings: ConfigIssue[];
  /** Each secret's config path (`destinations.hubspot.accessToken`) -> the variable it came from; never values. */
  variables: ReadonlyMap<string, string>;
}

/** Aliases expanded per document: far above any real config, far below an alias bomb. */
const MAX_ALIAS_EXPANSIONS = 1000;

/** `searches[0].filter.company` — the path format of every message. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out;
}

/** The value at `path` in a parsed document (own keys only), or undefined. */
export function valueAt(root: unknown, path: readonly (string | number)[]): unknown {
  let node = root;
  for (const part of path) {
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, part)) return undefined;
    node = (node as Record<string | number, unknown>)[part];
  }
  return node;
}

const INDENT_CODES = new Set(['BAD_INDENT', 'TAB_AS_INDENT', 'BLOCK_AS_IMPLICIT_KEY', 'MULTILINE_IMPLICIT_KEY']);

/** What a parser error means, in words a person editing the file knows (the parser's own words follow). */
function inWords(code: string, message: string): string {
  if (INDENT_CODES.has(code) || /without - indicator/.test(message))
    return code === 'TAB_AS_INDENT'
      ? 'indentation error: indent with spaces, not tabs; '
      : 'indentation error: this line does not line up with the lines of its block (check its spaces); ';
  if (code === 'MISSING_CHAR' && /quote/i.test(message)) return 'a quote is opened and never closed; ';
  if (code === 'DUPLICATE_KEY') return 'a key appears twice in the same block; ';
  return '';
}

const INT = /^[-+]?\d+$/;
const FLOAT = /^[-+]?(\d+\.\d*|\.\d+|\d+)(e[-+]?\d+)?$/i;

/**
 * An interpolated plain (unquoted) scalar is typed again, as YAML would have typed the text: `${PORT:-3000}` is a
 * number.
 */
function retype(text: string): unknown {
  if (INT.test(text) || FLOAT.test(text)) return Number(text);
  if (text === 'true' || text === 'false') return text === 'true';
  return text;
}

export interface YamlTreeOptions {
  /**
   * For a path the caller does not use, who does: an unset variable there is then a warning saying so, and the
   * block holding it is left out (its schema defaults apply or, for an optional block, it is absent).
   */
  usedOnlyBy?: (path: ConfigPath) => string | undefined;
}

export function readYamlTree(
  text: string,
  file: string,
  env: NodeJS.ProcessEnv,
  options: YamlTreeOptions = {},
): YamlTree {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: false, keepSourceTokens: false });
  const places = new Map<string, { key?: Place; value?: Place }>();
  const remember = (path: ConfigPath, part: 'key' | 'value', offset: number | undefined): void => {
    const id = JSON.stringify(path);
    const entry = places.get(id) ?? {};
    entry[part] ??= placeAt(offset);
    places.set(id, entry);
  };
  const issues: ConfigIssue[] = [];
  const placeAt = (offset: number | undefined): Place => {
    const pos = lineCounter.linePos(offset ?? 0);
    return { line: pos.line, column: pos.col };
  };
  const report = (offset: number | undefined, path: ConfigPath, message: string, list = issues): void => {
    list.push({ file, ...placeAt(offset), path: formatPath(path), message });
  };

  // After the first syntax error the parser's further complaints are mostly echoes of it; duplicate keys are not.
  const [first, ...rest] = doc.errors;
  const errors = first ? [first, ...rest.filter((error) => error.code === 'DUPLICATE_KEY')] : [];
  const warnings: ConfigIssue[] = [];
  // The first line only: the rest may quote the source, and the source may hold a literal secret.
  const yamlMessage = (message: string): string => `YAML: ${message.split('\n')[0]}`;
  for (const error of errors)
    report(error.pos[0], [], `${inWords(error.code, error.message)}${yamlMessage(error.message)}`);
  for (const warning of doc.warnings) report(warning.pos[0], [], yamlMessage(warning.message), warnings);
  if (doc.errors.length > 0)
    return { value: undefined, locate: () => ({ line: 0, column: 0 }), issues, warnings, variables: new Map() };

  let aliasesLeft = MAX_ALIAS_EXPANSIONS;
  const variables = new Map<string, string>();
  const leftOut: ConfigPath[] = [];

  const walk = (node: Node | null | undefined, path: ConfigPath, anchorOffset: number | undefined): unknown => {
    const offset = node?.range?.[0] ?? anchorOffset;
    remember(path, 'value', offset);
    if (node === null || node === undefined) return null;
    if (isAlias(node)) {
      aliasesLeft -= 1;
      if (aliasesLeft < 0) {
        if (aliasesLeft === -1) report(offset, path, `YAML: more than ${MAX_ALIAS_EXPANSIONS} alias expansions`);
        return null;
      }
      return walk(node.resolve(doc as Document) as Node | undefined, path, offset);
    }
    if (isMap(node)) {
      const out: Record<string, unknown> = {};
      for (const pair of node.items) {
        const keyNode = pair.key as Node | null;
        const keyValue = isScalar(keyNode) ? keyNode.value : undefined;
        if (typeof keyValue !== 'string' && typeof keyValue !== 'number') {
          report(keyNode?.range?.[0] ?? offset, path, 'map keys must be plain strings');
          continue;
        }
        const key = String(keyValue);
        const childPath = [...path, key];
        remember(childPath, 'key', keyNode?.range?.[0]);
        // defineProperty: a `__proto__` key must be an ordinary (and so unknown) key, not the object's prototype.
        Object.defineProperty(out, key, {
          value: walk(pair.value as Node | null, childPath, keyNode?.range?.[0]),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return out;
    }
    if (isSeq(node)) return node.items.map((item, index) => walk(item as Node | null, [...path, index], offset));
    if (isScalar(node)) return scalarValue(node, path, offset);
    return null;
  };

  const scalarValue = (node: Scalar, path: ConfigPath, offset: number | undefined): unknown => {
    const secret = isSecretPath(path);
    if (typeof node.value !== 'string') {
      if (secret && node.value !== null) report(offset, path, 'secrets come only from the environment: write ${VAR}');
      return node.value;
    }
    const result = interpolate(node.value, env);
    const usedBy = result.ok || result.unsetVariable === undefined ? undefined : options.usedOnlyBy?.(path);
    if (!result.ok && usedBy !== undefined) {
      report(offset, path, `${result.message}: only ${usedBy} needs it`, warnings);
      leftOut.push(path.length > 2 ? path.slice(0, -1) : path);
      return undefined;
    }
    if (!result.ok) {
      report(offset, path, result.message);
      return undefined;
    }
    if (secret) {
      if (!result.wholeValueIsVariable) report(offset, path, 'secrets come only from the environment: write ${VAR}');
      if (result.variable) variables.set(formatPath(path), result.variable);
      return result.value;
    }
    return result.usedVariable && node.type === Scalar.PLAIN ? retype(result.value) : result.value;
  };

  const value = walk(doc.contents as Node | null, [], 0);
  for (const path of leftOut) {
    const parent = valueAt(value, path.slice(0, -1));
    if (parent !== null && typeof parent === 'object')
      delete (parent as Record<string | number, unknown>)[path.at(-1)!];
  }
  const locate: Locate = (path, part = 'value') => {
    const own = places.get(JSON.stringify(path));
    const found = own?.[part] ?? own?.key ?? own?.value;
    if (found) return found;
    for (let n = path.length - 1; n >= 0; n -= 1) {
      const parent = places.get(JSON.stringify(path.slice(0, n)));
      const place = parent?.key ?? parent?.value;
      if (place) return place;
    }
    return { line: 1, column: 1 };
  };
  return { value, locate, issues, warnings, variables };
}
