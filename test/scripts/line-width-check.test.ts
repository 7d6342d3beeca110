/** `npm run check` fails on a line over 120, strings, comments, templates and regexes included, naming file:line. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { filesLinesOverWidth } from '../../scripts/wrap-long-lines/line-width.js';

const long = 'x'.repeat(130);

describe('the line width check', () => {
  it('ESLint (npm run lint) names each line over 120 in a TypeScript file, whatever it holds', async () => {
    const eslint = new ESLint({ cwd: join(import.meta.dirname, '..', '..') });
    const source = [
      `export const s = '${long}';`,
      `// ${long}`,
      `export const t = \`${long}\`;`,
      `export const r = /${long}/;`,
      `export const url = 'https://example.com/${long}';`,
      'export const fits = 1;',
    ].join('\n');
    const [result] = await eslint.lintText(source, { filePath: 'src/width-sample.ts' });
    const over = result?.messages.filter((m) => m.ruleId === 'max-len').map((m) => m.line);
    expect(over).toEqual([1, 2, 3, 4, 5]);
  });

  it('the Lua check (npm run lint:lua) names file:line of a Lua line over 120', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lua-width-'));
    const file = join(dir, 'script.lua');
    writeFileSync(file, `local a = 1\nlocal b = '${long}'\n-- fits\n`);
    expect(filesLinesOverWidth([file])).toEqual([`${file}:2: over 120 characters`]);
  });
});
