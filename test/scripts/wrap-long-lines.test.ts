/**
 * The long-line codemod (scripts/wrap-long-lines.ts): every line it rewrites fits the width, each literal keeps its
 * value, what must stay whole stays whole and is reported, and a second run changes nothing.
 */
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { linesOverWidth } from '../../scripts/wrap-long-lines/line-width.js';
import { behaviourOf } from '../../scripts/wrap-long-lines/same-behaviour.js';
import { wrapTexts } from '../../scripts/wrap-long-lines/wrap-files.js';

/** A file outside tsconfig.json's include: no type checker, no file on disk. */
const FILE = 'wrap-sample/sample.ts';

async function wrapOne(text: string): Promise<{ text: string; left: string[] }> {
  const { texts, left } = await wrapTexts(new Map([[FILE, text]]));
  return { text: texts.get(FILE) as string, left };
}

/** The module's exports, evaluated. */
function exportsOf(source: string): Record<string, unknown> {
  const js = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.CommonJS } }).outputText;
  const exports: Record<string, unknown> = {};
  new Function('exports', js)(exports);
  return exports;
}

const words = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `word${i + from}`).join(' ');

describe('wrap-long-lines', () => {
  it('splits strings and templates into pieces of the same value, never inside an escape or a ${}', async () => {
    const source = [
      `export const plain = 'it\\'s ${words(30)} \\u00e9\\n\\t and \\\\ the end';`,
      'const n = 42;',
      `export const template = \`${words(12)} \${n + 1} ${words(12, 12)} \${'x'.repeat(3)} \\\` ${words(6)}\`;`,
      `export const called = String(\`${words(28)}\`).length;`,
      `export const multi = \`first line\n${words(30)}\nlast\`;`,
    ].join('\n');
    const { text, left } = await wrapOne(source);
    expect(left).toEqual([]);
    expect(linesOverWidth(text)).toEqual([]);
    expect(text).toContain("' +");
    expect(text).toContain('` +');
    expect(exportsOf(text)).toEqual(exportsOf(source));
    expect(behaviourOf(FILE, text)).toBe(behaviourOf(FILE, source));
  });

  it('re-wraps comments at word boundaries under their prefix; a trailing one goes above its code', async () => {
    const source = [
      `// ${words(30)}`,
      `/** ${words(30)} */`,
      'export function f(): number {',
      '  /**',
      `   * - ${words(30)}`,
      '   */',
      `  return 1; // ${words(28)}`,
      '}',
      `// eslint-disable-next-line no-console -- ${words(25)}`,
      'console.log(f());',
    ].join('\n');
    const { text, left } = await wrapOne(source);
    expect(left).toEqual([]);
    expect(linesOverWidth(text)).toEqual([]);
    const lines = text.split('\n');
    expect(lines[0]).toMatch(/^\/\/ word0 word1 /);
    expect(lines[1]).toMatch(/^\/\/ word\d+/);
    expect(text).toContain('/**\n * word0 word1');
    // A list item's continuation hangs under its text.
    expect(text).toMatch(/\n {3}\* - word0 [^\n]*\n {3}\* {3}word/);
    // The directive stays right above the line it applies to.
    expect(text).toMatch(/\n\/\/ eslint-disable-next-line no-console\nconsole\.log/);
    expect(text).toMatch(/\n {2}\/\/ word0 [^\n]*\n(?: {2}\/\/ [^\n]*\n)* {2}return 1;\n/);
    expect(behaviourOf(FILE, text)).toBe(behaviourOf(FILE, source));
  });

  it('rewrites a long regex as new RegExp of its own source and flags', async () => {
    const alternatives = Array.from({ length: 30 }, (_, i) => `w${i}\\d+`).join('|');
    const source = `export const re = /^(?:${alternatives})\\/x$/giu;\n`;
    const { text, left } = await wrapOne(source);
    expect(left).toEqual([]);
    expect(text).toContain('new RegExp(');
    const before = exportsOf(source).re as RegExp;
    const after = exportsOf(text).re as RegExp;
    expect([after.source, after.flags]).toEqual([before.source, before.flags]);
  });

  it('leaves whole, and reports, what a concatenation would change (tagged templates, specifiers, types)', async () => {
    const long = words(28);
    const source = [
      `import type { X } from './${long.replaceAll(' ', '-')}.js';`,
      `export type Kind = '${long}';`,
      `export const tagged = String.raw\`${long}\`;`,
      `export const kinds = { a: '${long}' } as const;`,
      `export const n = (k: string) => k === '${long}';`,
      'export type { X };',
    ].join('\n');
    const { text, left } = await wrapOne(source);
    expect(text).toBe(source);
    expect(left.map((l) => l.replace(/^[^:]+:\d+: /, ''))).toEqual([
      'a module specifier',
      'a literal type',
      'a tagged template',
      'an `as const` value',
      'a comparison that narrows',
    ]);
  });

  it('changes nothing on its own output', async () => {
    const source = `export const a = '${words(40)}';\n// ${words(40)}\n`;
    const once = await wrapOne(source);
    const twice = await wrapOne(once.text);
    expect(twice.text).toBe(once.text);
  });

  it('tells a changed value from a changed layout', () => {
    const a = "const s = 'a b';\nconst t = `x${s} y`;";
    expect(behaviourOf(FILE, "const s =\n  'a ' + 'b';\nconst t = `x${s}` + ' y'; // why")).toBe(behaviourOf(FILE, a));
    expect(behaviourOf(FILE, "const s = 'a' + 'b';\nconst t = `x${s} y`;")).not.toBe(behaviourOf(FILE, a));
    expect(behaviourOf(FILE, "const s = 'a b';\nconst t = String.raw`x${s} y`;")).not.toBe(behaviourOf(FILE, a));
  });
});
