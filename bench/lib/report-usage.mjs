// Preloaded into a worker process by bench/lib/worker-process.ts (`node --import`): at exit it writes the process's own
// CPU time and peak RSS (getrusage) to $BENCH_USAGE_FILE, so the figures are the worker's and nothing else's.
import { writeFileSync } from 'node:fs';

const file = process.env.BENCH_USAGE_FILE;
if (file) {
  process.on('exit', () => {
    const u = process.resourceUsage();
    writeFileSync(
      file,
      JSON.stringify({ userMs: u.userCPUTime / 1000, systemMs: u.systemCPUTime / 1000, maxRssKb: u.maxRSS }),
    );
  });
}
