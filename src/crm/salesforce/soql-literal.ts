/** A SOQL string literal: backslash escapes for quotes, backslashes and control characters (SOQL's escape set). */
export function soqlString(value: string): string {
  const escaped = value.replace(
    /[\\'"\n\r\t\b\f]/g,
    (c) => ({ '\n': '\\n', '\r': '\\r', '\t': '\\t', '\b': '\\b', '\f': '\\f' })[c] ?? `\\${c}`,
  );
  return `'${escaped}'`;
}

/**
 * `SELECT ... FROM object WHERE [filter AND] field IN (...)` statements covering `keys`, at most `maxKeys` values and
 * about `maxChars` characters each (queries travel in the URL, which Salesforce caps near 16 KB).
 */
export function inQueries(
  select: string[],
  object: string,
  field: string,
  keys: string[],
  maxKeys = 200,
  maxChars = 8000,
  filter?: string,
): string[] {
  const head =
    `SELECT ${select.join(', ')} FROM ${object} WHERE ${filter === undefined ? '' : `${filter} AND `}${field} IN ` +
    `(`;
  const out: string[] = [];
  let batch: string[] = [];
  let length = head.length;
  for (const key of keys) {
    const literal = soqlString(key);
    if (batch.length > 0 && (batch.length >= maxKeys || length + literal.length + 2 > maxChars)) {
      out.push(`${head}${batch.join(', ')})`);
      batch = [];
      length = head.length;
    }
    batch.push(literal);
    length += literal.length + 2;
  }
  if (batch.length > 0) out.push(`${head}${batch.join(', ')})`);
  return out;
}
