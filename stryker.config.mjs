// Mutation testing on chosen files: `npm run mutate -- <file>[,<file>...]`, with the tests that cover them in
// MUTATE_TESTS (comma-separated; default: the test files named after the mutated ones). Not part of `npm test`.
// STRYKER_TMP names the sandbox folder when two runs go at once. Scores and notable survivors: docs/benchmarks.md.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  plugins: ['@stryker-mutator/vitest-runner'],
  vitest: { configFile: 'vitest.mutate.config.ts', related: false },
  coverageAnalysis: 'perTest',
  // A shared 2-core machine: one sandbox at a time.
  concurrency: 1,
  timeoutMS: 30_000,
  reporters: ['clear-text', 'progress', 'json'],
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  tempDirName: process.env.STRYKER_TMP ?? '.stryker-tmp',
  ignorePatterns: ['.stryker-tmp*', 'reports', 'bench/results'],
  cleanTempDir: true,
  ignoreStatic: true,
};
