/**
 * Cost of the worker: CPU ms per 1,000 records and peak RSS of the worker process (the compiled CLI,
 * `prospect-sync run <search> --json`, in its own process; emulators in another) at each size, with `--dry-run` and
 * with HubSpot writes. The package is "fast" (no rate limit that binds, no page latency) so the run is CPU-bound and
 * the figures are per record. Also: RSS sampled over the run (flat or growing?), the process's fixed cost
 * (`validate`, the same start-up without a run), and a --cpu-prof profile's top self-time functions.
 * Run: npx tsx bench/worker-cost.ts [sizes=100000,1000000] [--no-profile] [--max-old-space-size=MB]
 * [--max-semi-space-size=MB] [--dry-run-only]
 * (the V8 flags are passed to the worker only: does a run fit a small heap, i.e. is the RSS growth live data?)
 */
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunSummary } from '../src/runs/run-summary.js';
import { createRedis, deleteKeysUnder } from '../src/shared/redis.js';
import { companiesSearch, HUBSPOT_TOKEN, REDIS_URL, SI_CLIENT, writeBenchConfig } from './lib/bench-config.js';
import { topSelfTime } from './lib/cpu-profile.js';
import { startEmulatorHost } from './lib/emulator-host-client.js';
import { load, machine } from './lib/machine.js';
import { ensureBuilt, lastJson, startWorker, type WorkerResult } from './lib/worker-process.js';

const SIZES = (process.argv[2] && !process.argv[2].startsWith('--') ? process.argv[2] : '100000,1000000')
  .split(',')
  .map(Number);
const PROFILE = !process.argv.includes('--no-profile');
// V8 heap flags passed to the worker only (e.g. is the RSS growth live data? what does a smaller young generation
// save?)
const V8_FLAGS = process.argv.filter((a) => /^--max-(old|semi)-space-size=\d+$/.test(a));
const HEAP = V8_FLAGS.join(' ');
const DRY_ONLY = process.argv.includes('--dry-run-only');
const FAST = 1_000_000; // requests per window: never binds
const out: Record<string, unknown>[] = [];

ensureBuilt();
console.log(`machine: ${machine()}; ${load()} at start`);
const redis = createRedis(REDIS_URL);

/** RSS at a quarter, half, three quarters and the end of the run (MB), from the /proc samples. */
function rssCurve(r: WorkerResult): number[] {
  if (r.rss.length === 0) return [];
  return [0.25, 0.5, 0.75, 1].map((q) => r.rss[Math.min(r.rss.length - 1, Math.floor(q * (r.rss.length - 1)))]![1]);
}

for (const size of SIZES) {
  const host = await startEmulatorHost({
    salesIntel: {
      companies: size,
      persons: 1000,
      windowSeconds: 10,
      accounts: [{ ...SI_CLIENT, limits: { search: FAST, count: FAST, dictionary: FAST } }],
    },
    hubspot: { accessTokens: [HUBSPOT_TOKEN], limits: { perTenSeconds: FAST, daily: 100_000_000 } },
  });
  const cfg = writeBenchConfig(host, {
    name: 'cost',
    limits: { search: FAST, windowSeconds: 10 },
    hubspotPer10s: FAST,
    searches: [companiesSearch('cost-dry', 'hs', 'companies'), companiesSearch('cost-hs', 'hs', 'companies')],
  });
  try {
    if (size === SIZES[0]) {
      const v = await startWorker(['validate', '--config', cfg.file], cfg.env).done;
      const f = {
        label: 'fixed cost: `validate` (start-up, config, exit; no run)',
        cpuMs: Math.round(v.usage.cpuMs),
        maxRssMb: Math.round(v.usage.maxRssMb),
        load: load(),
      };
      console.log(JSON.stringify(f));
      out.push(f);
    }
    const cases: [string, string[]][] = [
      ['--dry-run', ['run', 'cost-dry', '--dry-run', '--json']],
      ['HubSpot writes', ['run', 'cost-hs', '--json']],
    ];
    if (DRY_ONLY) cases.pop();
    for (const [mode, args] of cases) {
      await host.reset();
      const loadBefore = load();
      const r = await startWorker(
        [...args, '--config', cfg.file],
        cfg.env,
        V8_FLAGS.length > 0 ? { nodeArgs: V8_FLAGS } : {},
      ).done;
      let s: RunSummary;
      try {
        s = lastJson<RunSummary>(r.stdout);
      } catch {
        // e.g. the heap limit was too small: say so instead of a figure
        const f = {
          label: `${size} companies, ${mode}${HEAP ? `, worker ${HEAP}` : ''}`,
          exitCode: r.exitCode,
          noSummary: r.stderr.slice(-600),
          maxRssMb: Math.round(r.usage.maxRssMb),
          loadBefore,
        };
        console.log(JSON.stringify(f));
        out.push(f);
        continue;
      }
      const stats = await host.stats();
      const f = {
        label: `${size} companies, ${mode}${HEAP ? `, worker ${HEAP}` : ''}`,
        exitCode: r.exitCode,
        status: s.status,
        records: s.fetched,
        created: s.created,
        partitions: s.partitions,
        wallSeconds: Number((r.wallMs / 1000).toFixed(1)),
        recordsPerSecond: Math.round(s.fetched / (r.wallMs / 1000)),
        cpuMs: Math.round(r.usage.cpuMs),
        cpuMsPer1000: Number((r.usage.cpuMs / (s.fetched / 1000)).toFixed(2)),
        maxRssMb: Math.round(r.usage.maxRssMb),
        rssAtQuarters: rssCurve(r),
        emulatorHostCpuMs: Math.round(stats.hostCpuMs),
        hubspotRequests: stats.hubspot?.requests ?? 0,
        loadBefore,
        loadAfter: load(),
      };
      console.log(JSON.stringify(f));
      out.push(f);
    }
    if (PROFILE && size === SIZES[0]) {
      // A second HubSpot run of a fresh search (so it writes again), profiled: profiling slows it, so it is not timed.
      const dir = mkdtempSync(join(tmpdir(), 'bench-prof-'));
      const cfg2 = writeBenchConfig(host, {
        name: 'cost-prof',
        limits: { search: FAST, windowSeconds: 10 },
        hubspotPer10s: FAST,
        searches: [
          {
            ...companiesSearch('cost-prof', 'hs', 'companies'),
            matchOn: { field: 'prospect_sync_id_prof', from: 'id' },
          },
        ],
      });
      const r = await startWorker(['run', 'cost-prof', '--json', '--config', cfg2.file], cfg2.env, { cpuProfDir: dir })
        .done;
      const file = join(
        dir,
        readdirSync(dir).find((f) => f.endsWith('.cpuprofile'))!,
      );
      const top = topSelfTime(file, 10);
      console.log(
        `--cpu-prof of a ${size}-record HubSpot run (${lastJson<RunSummary>(r.stdout).status}), top 10 self ` +
          `time (profile: ${file}):`,
      );
      for (const t of top)
        console.log(`  ${String(t.ms).padStart(6)} ms ${(t.share * 100).toFixed(1).padStart(5)}%  ${t.fn}  ${t.where}`);
      out.push({ label: `cpu profile, ${size} companies, HubSpot writes`, top });
      await deleteKeysUnder(redis, cfg2.prefix);
    }
  } finally {
    await deleteKeysUnder(redis, cfg.prefix);
    await host.stop();
  }
}
redis.disconnect();
if (process.env.BENCH_OUT) writeFileSync(process.env.BENCH_OUT, JSON.stringify(out, null, 1));
