/**
 * A simulated token period (issue 24): 30 days compressed on the emulators (bench/lib/token-period-sim.ts), with a
 * daily index churn of 0.1% and 1% of the companies (change a mapped field, leave, enter: thirds), five saved searches
 * of different sizes, schedules and priorities, `source.tokens.pace: true` and an allotment of half what full mode
 * would spend. Per churn: `refresh.mode: full`, then `changed` at maxAgeDays 14 and 7. Prints per configuration the
 * tokens per run against full, the oldest a changed field stayed stale in the CRM, the share of entered companies
 * synced the same day, whether the allotment ran out before the reset, priority order under pacing, and `plan --all`'s
 * forecast (taken at days 2 and 9: whole weeks before the reset) against the tokens then spent.
 * Run: REDIS_URL=redis://127.0.0.1:6379/14 npx tsx bench/token-period.ts [companies=20000] [churn=0.001,0.01]
 *      [modes=full,changed:14,changed:7] [days=30]
 * Writes bench/results/token-period-<companies>.json (BENCH_OUT overrides).
 */
import { writeFileSync } from 'node:fs';
import { createRedis } from '../src/shared/redis.js';
import { load, machine } from './lib/machine.js';
import { simulatePeriod, type PeriodResult } from './lib/token-period-sim.js';

const COMPANIES = Number(process.argv[2] ?? 20_000);
const CHURN = (process.argv[3] ?? '0.001,0.01').split(',').map(Number);
const MODES = (process.argv[4] ?? 'full,changed:14,changed:7').split(',').map((m) => {
  const [mode, age] = m.split(':');
  return { mode: mode === 'changed' ? ('changed' as const) : ('full' as const), maxAgeDays: Number(age ?? 14) };
});
const DAYS = Number(process.argv[5] ?? 30);
const ALLOTMENT_SHARE = 0.5;
const OUT = process.env.BENCH_OUT ?? `bench/results/token-period-${COMPANIES}.json`;

const redis = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/14');
const results: (Omit<PeriodResult, 'runs'> & { loadBefore: string; loadAfter: string; runs: number })[] = [];
console.log(`machine: ${machine()}; ${load()} at start`);
try {
  for (const churnShare of CHURN) {
    let full: PeriodResult | undefined;
    for (const refresh of MODES) {
      const loadBefore = load();
      const r = await simulatePeriod({
        redis,
        companies: COMPANIES,
        days: DAYS,
        churnShare,
        refresh,
        allotmentShare: ALLOTMENT_SHARE,
        forecastDays: [2, 9],
        onRun: process.env.VERBOSE ? console.log : undefined,
      });
      if (refresh.mode === 'full') full = r;
      const label =
        `churn ${churnShare * 100}%/day, ${refresh.mode}` +
        `${refresh.mode === 'changed' ? ` maxAgeDays ${refresh.maxAgeDays}` : ''}`;
      const first = r.exhaustedRuns[0];
      const exhausted = first
        ? ` (first: ${first.search} on ` +
          `day ${first.day}; ${r.exhaustedRuns.filter((x) => x.gateNeeded > 0).length} of them with a higher ` +
          `priority to protect)`
        : '';
      console.log(
        `\n${label}: ${r.tokens} tokens of an allotment of ${r.allotment} (full mode would ` +
          `need ${r.fullModeNeed}); left at the reset ${r.remainingAtEnd}; 402s ${r.served402}; runs ended by the ` +
          `exhausted allotment ${r.exhaustedRuns.length}${exhausted}; priority ` +
          `violations ${r.priorityViolations.length}; endings other than ` +
          `completed ${JSON.stringify(r.otherEndings)}; ${r.wallSeconds} s`,
      );
      for (const s of r.searches) {
        const f = full?.searches.find((x) => x.search === s.search);
        const ratio =
          f && f.tokensPerRunAfterFirst > 0
            ? ` = ${((100 * s.tokensPerRunAfterFirst) / f.tokensPerRunAfterFirst).toFixed(1)}% of full`
            : '';
        const walked = s.countsPerRun
          ? ` (${s.countsPerRun} counts, ${s.walkedPerRun} of ${s.keptPartitions} partitions walked per run)`
          : '';
        console.log(
          `  ${s.search.padEnd(20)} p${s.priority} ${String(s.matchesAtStart).padStart(6)} matches: ${s.runs} ` +
            `runs, ${s.paced} paced, ${s.tokensPerRunAfterFirst} tokens/run after the first${ratio}${walked}; ` +
            `stale max ${s.maxStaleDays} d (${s.changedOpenAtEnd}/${s.changedTracked} open at the end); ` +
            `entered ${s.entered}: same day ${s.enteredSameDay}, at the first run ${s.enteredAtFirstRun}, ` +
            `never ${s.enteredNeverSynced}`,
        );
      }
      for (const v of r.priorityViolations.slice(0, 3))
        console.log(`  priority: ${v.paced} paced at ${v.at}, then ${v.lowerRan} (lower) ran at ${v.lowerAt}`);
      for (const fc of r.forecasts)
        console.log(
          `  forecast at day ${fc.day}: ${fc.forecastTokens} tokens until the reset, spent ${fc.actualTokens}: ` +
            `error ${(fc.error * 100).toFixed(1)}%; exhausts ${fc.exhaustsAt ?? 'not before the reset'}`,
        );
      results.push({ ...r, runs: r.runs.length, loadBefore, loadAfter: load() });
    }
  }
} finally {
  redis.disconnect();
}
writeFileSync(
  OUT,
  JSON.stringify(
    { machine: machine(), companies: COMPANIES, days: DAYS, allotmentShare: ALLOTMENT_SHARE, results },
    null,
    1,
  ),
);
console.log(`\nwritten ${OUT}; ${load()} at the end`);
