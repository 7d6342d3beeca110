/** The generated references under docs/reference/ are what `npm run docs:generate` makes from the code today. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configurationRows } from '../../scripts/docs/config-reference.js';
import { generatedDocs, REFERENCE_DIR } from '../../scripts/docs-generate.js';

const FIX = 'stale: run `npm run docs:generate` and commit docs/reference/';

describe('docs/reference/', async () => {
  const docs = await generatedDocs();

  it.each(Object.keys(docs))('%s is up to date with the code', (name) => {
    const onDisk = readFileSync(join(REFERENCE_DIR, name), 'utf8');
    expect(onDisk === docs[name], `docs/reference/${name} is ${FIX}`).toBe(true);
  });

  it('describes every config key (the descriptions live in the schema)', () => {
    const bare = configurationRows().filter((r) => r.description === '');
    expect(bare.map((r) => `${r.key}${r.group ? ` (${r.group})` : ''}`)).toEqual([]);
  });
});
