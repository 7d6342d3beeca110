/**
 * Issue 23's benchmark: a 100,000-company search mirrored into a HubSpot list (`list: {name}`, `onLeave:
 * removeFromList`, confirmRuns 2) by the real worker process, on the emulators and real Redis; 1% of the companies
 * leave the filter and 1% enter it after run 1 (bench/lib/mirror-scenario.ts). Prints each run's list calls per
 * changed member, when the list work ran against the run, tokens with and without `list:`, the Redis bytes per member
 * of the membership and list state, and the scenario's checks (the unchanged run 4 makes 0 list writes); exits 1 when
 * a check fails.
 * Run: REDIS_URL=redis://127.0.0.1:6379/<db> npx tsx bench/mirror-lists.ts [companies=100000] [rate=500/60]
 * [hubspotPer10s=190] [runs=all|unchanged] (`rate`: API searches per window / window seconds; `unchanged`: run 1
 * and an unchanged run 2 only; JSON to $BENCH_OUT when set). The worker runs with the image's Node flags (the
 * Dockerfile's NODE_OPTIONS) and those in $BENCH_WORKER_NODE_ARGS (space-separated, e.g. a memory sampler); the
 * emulators run in two processes of their own (API; HubSpot).
 */
import { writeFileSync } from 'node:fs';
import { runMirrorScenario } from './lib/mirror-scenario.js';
import { load, machine } from './lib/machine.js';
import { ensureBuilt, imageNodeOptions } from './lib/worker-process.js';

const COMPANIES = Number(process.argv[2] ?? 100_000);
const [LIMIT, WINDOW_S] = (process.argv[3] ?? '500/60').split('/').map(Number) as [number, number];
const HUBSPOT_PER_10S = Number(process.argv[4] ?? 190);
const RUNS = process.argv[5] === 'unchanged' ? 'unchanged' : 'all';

ensureBuilt();
const started = { machine: machine(), load: load(), at: new Date().toISOString() };
console.log(
  JSON.stringify({ companies: COMPANIES, rate: `${LIMIT}/${WINDOW_S}s`, hubspotPer10s: HUBSPOT_PER_10S, ...started }),
);
const result = await runMirrorScenario({
  companies: COMPANIES,
  rate: { limit: LIMIT, windowSeconds: WINDOW_S },
  hubspotPer10s: HUBSPOT_PER_10S,
  latency: { fixedMs: 150, jitterMs: 150 },
  align: true,
  plainRun: RUNS === 'all',
  runs: RUNS,
  runtime: 'dist',
  workerNodeArgs: [...imageNodeOptions(), ...(process.env.BENCH_WORKER_NODE_ARGS ?? '').split(' ').filter(Boolean)],
  onRun: (r) => console.log(JSON.stringify(r)),
});
console.log(JSON.stringify({ memory: result.memory }));
console.log(JSON.stringify({ checks: result.checks, loadAtEnd: load() }));
if (process.env.BENCH_OUT)
  writeFileSync(
    process.env.BENCH_OUT,
    JSON.stringify(
      {
        ...started,
        companies: COMPANIES,
        rate: `${LIMIT}/${WINDOW_S}`,
        hubspotPer10s: HUBSPOT_PER_10S,
        ...result,
        loadAtEnd: load(),
      },
      null,
      1,
    ),
  );
if (Object.values(result.checks).some((ok) => !ok)) process.exitCode = 1;
