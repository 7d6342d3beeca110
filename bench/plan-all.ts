/**
 * `plan --all` with 300 searches at `*\/15` (goal <= 5 s): first with no history (one free count per search against
 * the Sales-Intelligence emulator, each answer 230 ms late, the account's default 500 counts per 60 s), then with 5
 * runs of history each and a known balance resetting in 30 days (no count; the forecast to the reset). The command's
 * own function over real Redis and the real source client, in this process.
 * Run: REDIS_URL=redis://127.0.0.1:6379/12 npx tsx bench/plan-all.ts [searches=300] [--latency-ms=230]
 */
import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { openSource } from '../jobs/sync-search/index.js';
import { allotmentForecastOf } from '../src/cli/commands/plan-all.js';
import { recordRun } from '../src/runs/run-history.js';
import { silentLogger } from '../src/shared/logger.js';
import { companySearch, completedRun, hubspotConfig, startFixture } from '../test/jobs/sync-fixture.js';
import { load, machine } from './lib/machine.js';

const SEARCHES = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? 300);
const latency = Number(process.argv.find((a) => a.startsWith('--latency-ms='))?.split('=')[1] ?? 230);
const fx = await startFixture('bench-plan-all', {
  hubspot: false,
  salesIntel: { faults: { latency: { fixedMs: latency, jitterMs: 0 } } },
});
const names = Array.from({ length: SEARCHES }, (_, i) => `s${i}`);
const config = fx.config(
  hubspotConfig(names.map((n) => companySearch(n, '    schedule: {cron: "*/15 * * * *"}')).join('')),
);
const source = openSource(config, fx.redis, fx.prefix, silentLogger);
const out: Record<string, unknown>[] = [];
try {
  let t = performance.now();
  await allotmentForecastOf({ config, source, redis: fx.redis, prefix: fx.prefix });
  const coldMs = performance.now() - t;
  const stats = fx.si.stats('worker');
  out.push({
    label: `plan --all, ${SEARCHES} searches never run (counts ${latency} ms late)`,
    ms: Math.round(coldMs),
    counts: stats.operations.count,
    peakInFlight: stats.peakInFlight.count,
    served429: stats.served429.count,
    goalMs: 5_000,
  });
  for (const n of names)
    for (let r = 0; r < 5; r++) await recordRun(fx.redis, completedRun(n, `${n}-${r}`, 40), { prefix: fx.prefix });
  const now = Date.now();
  await fx.redis.hset(`${fx.prefix}:source:${source.accountKey}:tokens`, {
    limit: 10_000_000,
    remaining: 5_000_000,
    resetAt: now + 30 * 86_400_000,
    observedAt: now,
  });
  const warm: number[] = [];
  let exhaustsAt: string | null = null;
  for (let i = 0; i < 5; i++) {
    t = performance.now();
    const { forecast } = await allotmentForecastOf({ config, source, redis: fx.redis, prefix: fx.prefix });
    warm.push(performance.now() - t);
    exhaustsAt = forecast?.exhaustsAt ?? null;
  }
  out.push({
    label: `plan --all, ${SEARCHES} searches x 5 runs of history, reset in 30 days (5 times)`,
    ms: warm.map(Math.round),
    exhaustsAt,
    goalMs: 5_000,
  });
  for (const line of out) console.log(JSON.stringify({ ...line, machine: machine(), load: load() }));
} finally {
  await source.close();
  await fx.close();
}
if (process.env.BENCH_OUT) writeFileSync(process.env.BENCH_OUT, JSON.stringify(out, null, 1));
