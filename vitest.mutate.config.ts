import { basename } from 'node:path';
import { defineConfig } from 'vitest/config';

// The test files a mutation run (stryker.config.mjs) uses: MUTATE_TESTS, or those named after the mutated files.
function tests(): string[] {
  const given = process.env.MUTATE_TESTS;
  if (given) return given.split(',');
  const mutated = process.argv.slice(process.argv.indexOf('--mutate') + 1)[0] ?? '';
  return mutated
    .split(',')
    .filter(Boolean)
    .map((file) => `test/**/${basename(file, '.ts')}.test.ts`);
}

export default defineConfig({
  test: {
    include: tests(),
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 1,
  },
});
