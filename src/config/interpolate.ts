import { readFileSync } from 'node:fs';

/** Result of interpolating one scalar: the value, or why it failed (messages never carry variable values). */
export type Interpolated =
  | {
      ok: true;
      value: string;
      usedVariable: boolean;
      wholeValueIsVariable: boolean;
      /** With wholeValueIsVariable: where the value came from (`NAME` or `NAME_FILE`), for errors about it. */
      variable?: string;
    }
  | { ok: false; message: string; unsetVariable?: string };

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * A variable's value: `NAME` from the environment, else the trimmed contents of the file named by `NAME_FILE`
 * (Docker/Kubernetes secrets), else the default. Empty counts as unset, as in the shell's `${VAR:-default}`.
 */
function lookup(
  name: string,
  fallback: string | undefined,
  env: NodeJS.ProcessEnv,
): { value: string; from: string } | { message: string; unsetVariable?: string } {
  const direct = env[name];
  if (direct !== undefined && direct !== '') return { value: direct, from: name };
  const file = env[`${name}_FILE`];
  if (file !== undefined && file !== '') {
    try {
      return { value: readFileSync(file, 'utf8').trim(), from: `${name}_FILE` };
    } catch {
      return { message: `cannot read the file named by environment variable ${name}_FILE` };
    }
  }
  if (fallback !== undefined) return { value: fallback, from: name };
  if (direct === '') return { value: '', from: name };
  return { message: `environment variable ${name} is not set (nor ${name}_FILE)`, unsetVariable: name };
}

/** `${VAR}`, `${VAR:-default}` and `$$` (a literal `$`) in one scalar string. */
export function interpolate(text: string, env: NodeJS.ProcessEnv): Interpolated {
  let out = '';
  let usedVariable = false;
  let expressions = 0;
  let variable = '';
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    if (ch !== '$') {
      out += ch;
      i += 1;
      continue;
    }
    const next = text[i + 1];
    if (next === '$') {
      out += '$';
      i += 2;
      continue;
    }
    if (next !== '{') {
      out += '$';
      i += 1;
      continue;
    }
    const end = text.indexOf('}', i + 2);
    if (end < 0) return { ok: false, message: 'unterminated ${ in value (write $$ for a literal $)' };
    const inner = text.slice(i + 2, end);
    const sep = inner.indexOf(':-');
    const name = sep < 0 ? inner : inner.slice(0, sep);
    const fallback = sep < 0 ? undefined : inner.slice(sep + 2);
    if (!NAME.test(name))
      return { ok: false, message: `invalid variable name in \${${name}} (expected [A-Za-z_][A-Za-z0-9_]*)` };
    const found = lookup(name, fallback, env);
    if ('message' in found) return { ok: false, ...found };
    out += found.value;
    variable = found.from;
    usedVariable = true;
    expressions += 1;
    i = end + 1;
  }
  const wholeValueIsVariable = expressions === 1 && /^\$\{[^}]*\}$/.test(text);
  return { ok: true, value: out, usedVariable, wholeValueIsVariable, ...(wholeValueIsVariable ? { variable } : {}) };
}
