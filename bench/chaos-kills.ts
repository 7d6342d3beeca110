/**
 * The worker-kill chaos scenario (test/chaos/kill-scenario.ts) as a benchmark: a queued run of `records` companies
 * whose worker OS process is SIGKILLed `kills` times at random moments, a new worker process started after each.
 * Prints whether the CRM ended exact, tokens spent per record (goal <= 1.05 at 100,000), the overhead per kill and the
 * recovery time per kill (SIGKILL -> the run's checkpoint moves again: stall detection + process start + resume).
 * Page latency 150 ms, pages of 100, 4 journeys, the emulator's 500 searches per window compressed to a 6 s window.
 * Run: REDIS_URL=redis://127.0.0.1:6379/<db> npx tsx bench/chaos-kills.ts [records=100000] [kills=5] [seed=12]
 */
import { runKillScenario } from '../test/chaos/kill-scenario.js';

const records = Number(process.argv[2] ?? 100_000);
const kills = Number(process.argv[3] ?? 5);
const seed = Number(process.argv[4] ?? 12);

const r = await runKillScenario({
  companies: records,
  kills,
  seed,
  pageSize: 100,
  parallelism: 4,
  latencyMs: 150,
  windowSeconds: 6,
  // after its point (a random share of the run) a kill lands anywhere within the next ~2 write batches
  maxKillDelayMs: 1_500,
  timeoutMs: 600_000,
});
const exact = r.diff.missing.length + r.diff.extra.length + r.diff.duplicates.length + r.diff.wrong.length === 0;
const overhead = r.tokensCharged - r.records;
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
console.log(
  JSON.stringify({
    records: r.records,
    kills: r.kills,
    state: r.state,
    crmExact: exact,
    ...(exact
      ? {}
      : {
          diff: {
            missing: r.diff.missing.length,
            extra: r.diff.extra.length,
            duplicates: r.diff.duplicates.length,
            wrong: r.diff.wrong.length,
          },
        }),
    tokensCharged: r.tokensCharged,
    tokensPerRecord: Number((r.tokensCharged / r.records).toFixed(4)),
    overheadTokensPerKill: r.kills ? Math.round(overhead / r.kills) : 0,
    refetchBoundPerKill: r.refetchBoundPerKill,
    fetchedAtKill: r.fetchedAtKill,
    recoveryMs: r.recoveryMs,
    recoveryMedianMs: median(r.recoveryMs),
    attemptsStarted: r.attemptsStarted,
    wallS: Number((r.wallMs / 1000).toFixed(1)),
  }),
);
process.exit(exact && r.state === 'completed' && r.kills === kills ? 0 : 1);
