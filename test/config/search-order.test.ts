/** `after:` in the config: names known, not itself, no cycle; each problem at its file:line. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/index.js';
import { FIXTURES, fixtureEnv, parseError } from './config-fixtures.js';

const BASE = readFileSync(join(FIXTURES, 'valid-base.yaml'), 'utf8');
const afterOn = (search: string, names: string): string =>
  BASE.replace(`  - name: ${search}\n`, `  - name: ${search}\n    after: [${names}]\n`);

describe('after: between searches', () => {
  it('is valid when it names other searches', () => {
    const config = parseConfig(afterOn('dach-people', 'dach-software'), 'test.yaml', fixtureEnv());
    expect(config.config.searches[1]?.after).toEqual(['dach-software']);
  });

  it.each([
    [
      'an unknown search',
      afterOn('dach-people', 'dach-softwear'),
      'searches[1].after[0]',
      "unknown search 'dach-softwear'",
    ],
    ['itself', afterOn('dach-people', 'dach-people'), 'searches[1].after[0]', 'cannot run after itself'],
    [
      'a cycle',
      afterOn('dach-software', 'dach-people').replace(
        '  - name: dach-people\n',
        '  - name: dach-people\n    after: [dach-software]\n',
      ),
      'searches[0].after',
      'dach-software -> dach-people -> dach-software',
    ],
  ])('refuses %s, naming file:line', (_what, text, path, message) => {
    const [issue] = parseError(text).issues;
    expect(issue?.path).toBe(path);
    expect(issue?.message).toContain(message);
    expect(issue?.line).toBeGreaterThan(0);
  });
});
