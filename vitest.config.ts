import { defineConfig } from 'vitest/config';
import { processTestFiles } from './test/process-tests.js';

// Tests share one real Redis: every test namespaces its keys (see test/helpers/redis.ts), so files may run in parallel.
export default defineConfig(({ mode }) => {
  const processFiles = processTestFiles(import.meta.dirname);
  return {
    test: {
      // finds (or starts) the Redis every file uses, or stops the run at once saying what to install; the files that
      // start processes get our sources compiled once (test/compiled-sources.ts), which the quick subset does not need
      globalSetup: ['test/suite-redis.ts', ...(mode === 'quick' ? [] : ['test/compiled-sources.ts'])],
      // HubSpot exchanges of the e2e and jobs tests checked against HubSpot's published specs.
      setupFiles: ['test/contracts/contract-setup.ts'],
      // Ceilings, not timings: child processes start slowly on a loaded 2-core machine.
      testTimeout: 120_000,
      hookTimeout: 120_000,
      pool: 'forks',
      // Four files at once on two cores: most of a file's time is waiting (rate windows, timers, child processes),
      // so the suite uses about one core at two; files never share keys (see above), so more at once is safe.
      maxWorkers: 4,
      reporters: ['default'],
      projects: [
        // No child process, no browser: the files share a worker's module cache (each file still gets fresh state
        // of its own: its own Redis prefix, emulators, sinks), which saves loading the sources once per file.
        {
          extends: true,
          test: { name: 'quick', include: ['test/**/*.test.ts'], exclude: processFiles, isolate: false },
        },
        // The files that start processes or browsers (test/process-tests.ts): `--mode quick` leaves them out.
        ...(mode === 'quick' ? [] : [{ extends: true as const, test: { name: 'process', include: processFiles } }]),
      ],
    },
  };
});
