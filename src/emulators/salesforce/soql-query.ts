import { findField } from './salesforce-schema.js';
import { SfRequestError, type RecordStore, type SfRecord } from './record-store.js';

/**
 * The small SOQL subset the emulator answers: `SELECT f1, f2 FROM T [WHERE F IN ('a', 'b') | WHERE F = 'a'] [LIMIT n]`.
 * Anything else is refused with MALFORMED_QUERY, so the sink cannot come to rely on what the emulator does not check.
 */
export function runSoql(store: RecordStore, soql: string): SfRecord[] {
  const m = /^\s*SELECT\s+(.+?)\s+FROM\s+(\w+)(?:\s+WHERE\s+(\w+)\s+(IN|=)\s+(.+?))?(?:\s+LIMIT\s+(\d+))?\s*$/is.exec(soql);
  if (!m) throw malformed('unexpected token');
  const [, fieldList, objectName, whereField, op, whereValue, limit] = m;
  const object = store.object(objectName!);
  const fields = fieldList!.split(',').map((f) => f.trim());
  const canonical = fields.map((f) => {
    if (!/^\w+$/.test(f)) throw malformed(`unexpected token: '${f}'`);
    const field = findField(object, f);
    if (!field) throw new SfRequestError(400, 'INVALID_FIELD', `No such column '${f}' on entity '${object.name}'.`);
    return field.name;
  });
  let rows: SfRecord[];
  if (whereField) {
    const field = findField(object, whereField);
    if (!field) throw new SfRequestError(400, 'INVALID_FIELD', `No such column '${whereField}' on entity '${object.name}'.`);
    const values = op!.toUpperCase() === 'IN' ? parseList(whereValue!) : [parseString(whereValue!.trim())];
    const seen = new Set<string>();
    rows = [];
    for (const value of values) {
      for (const row of store.findBy(object.name, field.name, value)) {
        if (!seen.has(String(row.Id))) rows.push(row);
        seen.add(String(row.Id));
      }
    }
  } else {
    rows = store.all(object.name);
  }
  if (limit !== undefined) rows = rows.slice(0, Number(limit));
  return rows.map((row) => Object.fromEntries(canonical.map((f) => [f, row[f] ?? null])));
}

function parseList(text: string): string[] {
  const t = text.trim();
  if (!t.startsWith('(') || !t.endsWith(')')) throw malformed('expecting a left parentheses');
  const values: string[] = [];
  let rest = t.slice(1, -1).trim();
  while (rest.length > 0) {
    const end = stringEnd(rest);
    values.push(parseString(rest.slice(0, end)));
    rest = rest.slice(end).trim();
    if (rest.startsWith(',')) rest = rest.slice(1).trim();
    else if (rest.length > 0) throw malformed(`unexpected token: '${rest.slice(0, 20)}'`);
  }
  if (values.length === 0) throw malformed('empty IN list');
  return values;
}

/** Index just past the closing quote of the quoted string at the start of `text`. */
function stringEnd(text: string): number {
  if (!text.startsWith("'")) throw malformed(`unexpected token: '${text.slice(0, 20)}'`);
  for (let i = 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === "'") return i + 1;
  }
  throw malformed('unterminated string literal');
}

function parseString(token: string): string {
  if (stringEnd(token) !== token.length) throw malformed(`unexpected token: '${token.slice(0, 20)}'`);
  return token.slice(1, -1).replace(/\\(.)/g, (_, c: string) => ({ n: '\n', r: '\r', t: '\t' })[c] ?? c);
}

function malformed(detail: string): SfRequestError {
  return new SfRequestError(400, 'MALFORMED_QUERY', `MALFORMED_QUERY: ${detail}`);
}
