/** YAML shapes beyond the happy path: anchors, alias bombs, __proto__, empty and multi-document files. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig, type ConfigIssue } from '../../src/config/index.js';
import { FIXTURES, fixtureEnv, parseError } from './config-fixtures.js';

const BASE = readFileSync(join(FIXTURES, 'valid-base.yaml'), 'utf8');

const issues = (text: string): ConfigIssue[] => parseError(text).issues;

describe('YAML edge cases', () => {
  it('anchors and aliases are followed, and errors inside them still have a place', () => {
    const shared = BASE.replace(
      '    fields:\n      name: name\n',
      '    fields: &company-fields\n      name: name\n',
    ).concat(
      '  - name: second\n    segment: icp-dach\n    entity: companies\n    filter: {}\n    destination: crm\n',
      '    object: companies\n    matchOn: {field: prospect_sync_id, from: id}\n    fields: *company-fields\n',
    );
    const { config } = parseConfig(shared, 'edge.yaml', fixtureEnv());
    expect(config.searches[2]?.fields).toEqual({ name: 'name' });

    const broken = shared.replace(
      '    fields: &company-fields\n      name: name\n',
      '    fields: &company-fields\n      name: 42\n',
    );
    // Both uses are reported; the place is where the bad value is written (under the anchor).
    expect(issues(broken).map((i) => `${i.line} ${i.path}`)).toEqual([
      '34 searches[0].fields.name',
      '34 searches[2].fields.name',
    ]);
  });

  it('an alias bomb is cut off instead of expanding', () => {
    const levels = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 9; i += 1)
      levels.push(
        `l${i}: &l${i} [${Array(10)
          .fill(i === 1 ? '*a' : `*l${i - 1}`)
          .join(', ')}]`,
      );
    const started = Date.now();
    const found = issues(`${levels.join('\n')}\n`);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(found.some((i) => i.message.includes('more than 1000 alias expansions'))).toBe(true);
  });

  it('a __proto__ key is an unknown key, not a prototype', () => {
    const found = issues(
      BASE.replace('reveal:\n', '__proto__:\n  reveal: {contactsAllowedSegments: [icp-dach]}\nreveal:\n'),
    );
    expect(found).toEqual([
      expect.objectContaining({ line: 18, column: 1, path: '__proto__', message: 'unknown key' }),
    ]);
  });

  it('empty, scalar and multi-document files', () => {
    expect(issues('')[0]).toMatchObject({ line: 1, path: '', message: expect.stringContaining('expected a mapping') });
    expect(issues('just text\n')[0]).toMatchObject({ line: 1, message: expect.stringContaining('expected a mapping') });
    expect(issues(`${BASE}---\nsource: {}\n`)[0]).toMatchObject({
      line: 49,
      message: expect.stringContaining('YAML: Source contains multiple documents'),
    });
  });

  it('non-string keys are refused', () => {
    const found = issues(BASE.replace('reveal:\n', '? [a, b]\n: 1\nreveal:\n'));
    expect(found[0]).toMatchObject({ line: 18, column: 3, message: 'map keys must be plain strings' });
  });

  it('a YAML error says what it is in plain words: indentation, tabs, an unclosed quote', () => {
    for (const spaces of ['   ', '     ']) {
      const misaligned = BASE.replace('    segment: icp-dach\n', `${spaces}segment: icp-dach\n`);
      expect(misaligned).not.toBe(BASE);
      const [first] = issues(misaligned);
      expect([spaces, first?.message]).toEqual([
        spaces,
        expect.stringMatching(/^indentation error: this line does not line up .*YAML: /),
      ]);
      expect(first?.line).toBeGreaterThan(0);
    }
    expect(issues('a:\n\tb: 1\n')[0]?.message).toMatch(/^indentation error: indent with spaces, not tabs/);
    expect(issues("a: 'x\n")[0]?.message).toMatch(/^a quote is opened and never closed/);
  });
});
