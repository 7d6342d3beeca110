import { defineConfig } from 'vitest/config';

// Tests share one real Redis: every test namespaces its keys (see test/helpers/redis.ts), so files may run in parallel.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // finds (or starts) the Redis every file uses, or stops the run at once saying what to install
    globalSetup: ['test/suite-redis.ts'],
    // Ceilings, not timings: child processes start slowly on a loaded 2-core machine.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 2,
    reporters: ['default'],
  },
});
