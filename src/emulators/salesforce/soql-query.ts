import { findField } from './salesforce-schema.js';
import { SfRequestError, type RecordStore, type SfRecord } from './record-store.js';

/**
 * The small SOQL subset the emulator answers: `SELECT f1, f2 FROM T [WHERE C [AND C ...]] [LIMIT n]` where each C is
 * `F IN ('a', 'b')`, `F = 'a'` or, on a checkbox, `F = true|false`. Anything else is refused with MALFORMED_QUERY,
 * so the sink cannot come to rely on what the emulator does not check.
 */
export function runSoql(store: RecordStore, soql: string): SfRecord[] {
  const m = /^\s*SELECT\s+(.+?)\s+FROM\s+(\w+)(?:\s+WHERE\s+(.+?))?(?:\s+LIMIT\s+(\d+))?\s*$/is.exec(soql);
  if (!m) throw malformed('unexpected token');
  const [, fieldList, objectName, where, limit] = m;
  const object = store.object(objectName!);
  const fields = fieldList!.split(',').map((f) => f.trim());
  const canonical = fields.map((f) => {
    if (!/^\w+$/.test(f)) throw malformed(`unexpected token: '${f}'`);
    const field = findField(object, f);
    if (!field) throw new SfRequestError(400, 'INVALID_FIELD', `No such column '${f}' on entity '${object.name}'.`);
    return field.name;
  });
  let rows: SfRecord[];
  if (where) {
    const [first, ...rest] = conditions(where).map(({ name, values, bool }) => {
      const field = findField(object, name);
      if (!field)
        throw new SfRequestError(400, 'INVALID_FIELD', `No such column '${name}' on entity '${object.name}'.`);
      // A checkbox compares with true / false only, and only a checkbox does.
      if (bool !== (field.type === 'boolean'))
        throw new SfRequestError(
          400,
          'INVALID_QUERY_FILTER_OPERATOR',
          `invalid ${bool ? 'boolean' : 'string'} literal for field '${field.name}' of type ${field.type}`,
        );
      return { field: field.name, values };
    });
    const seen = new Set<string>();
    rows = [];
    for (const value of first!.values) {
      for (const row of store.findBy(object.name, first!.field, value)) {
        if (!seen.has(String(row.Id))) rows.push(row);
        seen.add(String(row.Id));
      }
    }
    for (const c of rest) {
      const ids = new Set(c.values.flatMap((v) => store.findBy(object.name, c.field, v)).map((r) => String(r.Id)));
      rows = rows.filter((r) => ids.has(String(r.Id)));
    }
  } else {
    rows = store.all(object.name);
  }
  if (limit !== undefined) rows = rows.slice(0, Number(limit));
  return rows.map((row) => Object.fromEntries(canonical.map((f) => [f, row[f] ?? null])));
}

/** `F IN (...)` / `F = '...'` conditions joined by AND (string literals may hold the word AND). */
function conditions(where: string): { name: string; values: string[]; bool: boolean }[] {
  const out: { name: string; values: string[]; bool: boolean }[] = [];
  let rest = where.trim();
  for (;;) {
    const head = /^(\w+)\s+(IN|=)\s*/i.exec(rest);
    if (!head) throw malformed(`unexpected token: '${rest.slice(0, 20)}'`);
    rest = rest.slice(head[0].length);
    let end: number;
    if (head[2]!.toUpperCase() === 'IN') {
      if (!rest.startsWith('(')) throw malformed('expecting a left parentheses');
      // The closing parenthesis outside every literal.
      let i = 1;
      while (i < rest.length && rest[i] !== ')') {
        if (rest[i] === "'") i = i + stringEnd(rest.slice(i));
        else i++;
      }
      end = i + 1;
      out.push({ name: head[1]!, values: parseList(rest.slice(0, end)), bool: false });
    } else {
      const bool = /^(true|false)\b/i.exec(rest);
      end = bool ? bool[0].length : stringEnd(rest);
      const values = [bool ? bool[0].toLowerCase() : parseString(rest.slice(0, end))];
      out.push({ name: head[1]!, values, bool: bool !== null });
    }
    rest = rest.slice(end).trim();
    if (rest === '') return out;
    const and = /^AND\s+/i.exec(rest);
    if (!and) throw malformed(`unexpected token: '${rest.slice(0, 20)}'`);
    rest = rest.slice(and[0].length);
  }
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
