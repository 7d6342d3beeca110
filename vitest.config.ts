import { defineConfig } from 'vitest/config';

// Tests share one real Redis: every test namespaces its keys (see test/helpers/redis.ts), so files may run in parallel.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Ceilings, not timings: child processes start slowly on a loaded 2-core machine.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 2,
    reporters: ['default'],
    // HubSpot exchanges of the e2e and jobs tests checked against HubSpot's published specs.
    setupFiles: ['test/contracts/contract-setup.ts'],
  },
});
