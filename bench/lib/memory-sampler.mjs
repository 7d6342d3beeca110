// Preloaded into a worker process (`WC_WORKER_NODE_OPTIONS=--import=<this file>` for bench/worker-cost-slope.ts):
// samples what its resident memory is made of every 500 ms and, at exit, appends the sample at peak RSS and the last
// one to $BENCH_MEMORY_FILE (JSON lines): RSS (anonymous / file-backed), V8 heap by space, external and ArrayBuffers.
// With $BENCH_MEMORY_EVERY_S, a sample every that many seconds is appended too (what grows over a run).
import { appendFileSync, readFileSync } from 'node:fs';
import v8 from 'node:v8';

const file = process.env.BENCH_MEMORY_FILE;
if (file) {
  const mb = (bytes) => Math.round((bytes / 1048576) * 10) / 10;
  const statusMb = (status, field) =>
    Math.round(Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024);
  const started = Date.now();
  let peak;
  const sample = () => {
    const m = process.memoryUsage();
    const status = readFileSync('/proc/self/status', 'utf8');
    const s = {
      s: (Date.now() - started) / 1000,
      rss: mb(m.rss),
      rssAnon: statusMb(status, 'RssAnon'),
      rssFile: statusMb(status, 'RssFile'),
      heapTotal: mb(m.heapTotal),
      heapUsed: mb(m.heapUsed),
      external: mb(m.external),
      arrayBuffers: mb(m.arrayBuffers),
      spaces: Object.fromEntries(
        v8
          .getHeapSpaceStatistics()
          .filter((sp) => sp.space_size > 0)
          .map((sp) => [sp.space_name, mb(sp.space_size)]),
      ),
    };
    if (!peak || s.rss > peak.rss) peak = s;
    return s;
  };
  const every = Number(process.env.BENCH_MEMORY_EVERY_S ?? 0) * 1000;
  let lastLogged = 0;
  setInterval(() => {
    const s = sample();
    if (every > 0 && Date.now() - lastLogged >= every) {
      lastLogged = Date.now();
      appendFileSync(file, `${JSON.stringify({ sample: s })}\n`);
    }
  }, 500).unref();
  process.on('exit', () => {
    const last = sample();
    appendFileSync(file, `${JSON.stringify({ args: process.argv.slice(2).join(' '), peak, last })}\n`);
  });
}
