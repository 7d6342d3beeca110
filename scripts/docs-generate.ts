/**
 * Writes the generated references under docs/reference/ (`npm run docs:generate`). test/docs/reference-docs.test.ts
 * fails when a file there differs from what this makes.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { cliReference } from './docs/cli-reference.js';
import { configurationReference } from './docs/config-reference.js';
import { metricsReference } from './docs/metrics-reference.js';

export const REFERENCE_DIR = join(import.meta.dirname, '..', 'docs', 'reference');

/** Each generated file's name under docs/reference/ and its content. */
export async function generatedDocs(): Promise<Record<string, string>> {
  return {
    'configuration.md': configurationReference(),
    'metrics.md': metricsReference(),
    'cli.md': await cliReference(),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const [name, text] of Object.entries(await generatedDocs())) {
    writeFileSync(join(REFERENCE_DIR, name), text);
    console.log(`wrote docs/reference/${name}`);
  }
}
