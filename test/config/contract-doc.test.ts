/** docs/contract.md stays true for the repository: its commands, summary fields and config example. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { notStartedSummary } from '../../src/runs/run-summary.js';
import { FIXTURES } from './config-fixtures.js';
import { runCli } from './run-cli.js';

const doc = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'contract.md'), 'utf8');

function section(title: string): string {
  const start = doc.indexOf(`## ${title}`);
  expect(start, `section '${title}'`).toBeGreaterThanOrEqual(0);
  const end = doc.indexOf('\n## ', start + 1);
  return doc.slice(start, end < 0 ? undefined : end);
}

describe('docs/contract.md', () => {
  it('lists every command the CLI has, and no other', async () => {
    const { stdout } = await runCli(['help']);
    const commands = [...stdout.matchAll(/^ {2}([a-z]+) /gm)].map((m) => m[1]);
    expect(commands.length).toBeGreaterThan(5);
    const table = section('Command line');
    const documented = [...table.matchAll(/^\| `([a-z]+)[^|]*\|/gm)].flatMap((row) =>
      [...row[0].matchAll(/`([a-z]+)/g)].map((m) => m[1]),
    );
    expect([...new Set(documented)].sort()).toEqual([...commands].sort());
  });

  it('names every field a run summary always has', () => {
    const block = section('`run --json`');
    const fields = Object.keys(notStartedSummary('s', 'r', false, { code: 'c', message: 'm' }));
    for (const field of fields) expect(block, field).toContain(`"${field}"`);
  });

  it('shows the config example the test suite loads, character for character', () => {
    const yaml = /```yaml\n([\s\S]*?)```/.exec(section('Config file'))?.[1];
    expect(yaml).toBe(readFileSync(join(FIXTURES, 'contract-example.yaml'), 'utf8'));
  });
});
