import { defineConfig } from 'vitest/config';

// Tests share one real Redis: every test namespaces its keys (see test/helpers/redis.ts), so files may run in parallel.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
    reporters: ['default'],
  },
});
