/**
 * End to end: companies and persons (view contacts, under credit caps) from the Sales-Intelligence emulator at the
 * documented rate (500 searches per 60 s, kept as 83 per 10 s so a run spans many windows), page latency uniform
 * 150-300 ms, into HubSpot (190 requests / 10 s) and into Salesforce (Bulk API 2.0 for Accounts, sObject Collections
 * for Contacts). The worker is the real CLI (`prospect-sync run <search> --json`) in its own process; the emulators
 * run in another. Then an unchanged re-sync of the HubSpot companies search (0 CRM writes expected).
 * Run: npx tsx bench/end-to-end.ts [companies=100000] [persons=50000] [hubspot|salesforce|both=both] [rate=83/10]
 * (`rate` = searches per window / window seconds, e.g. 500/60 for the documented package in its real window;
 * persons=0 runs the companies only).
 */
import { writeFileSync } from 'node:fs';
import { createRedis, deleteKeysUnder } from '../src/shared/redis.js';
import type { RunSummary } from '../src/runs/run-summary.js';
import {
  companiesSearch,
  HUBSPOT_TOKEN,
  personsSearch,
  REDIS_URL,
  SF_CLIENT,
  SI_CLIENT,
  writeBenchConfig,
  type BenchConfig,
} from './lib/bench-config.js';
import { startEmulatorHost, type EmulatorHost } from './lib/emulator-host-client.js';
import { load, machine } from './lib/machine.js';
import { figures, type Rates } from './lib/run-report.js';
import { ensureBuilt, lastJson, startWorker } from './lib/worker-process.js';

const COMPANIES = Number(process.argv[2] ?? 100_000);
const PERSONS = Number(process.argv[3] ?? 50_000);
const WHICH = process.argv[4] ?? 'both';
const [RATE_LIMIT, RATE_WINDOW_S] = (process.argv[5] ?? '83/10').split('/').map(Number) as [number, number];
const RATES: Rates = { limit: RATE_LIMIT, windowSeconds: RATE_WINDOW_S, hubspotPer10s: 190 };
const LATENCY = { fixedMs: 150, jitterMs: 150 };
const SF_LATENCY_MS = 100;
const out: Record<string, unknown>[] = [];

ensureBuilt();
console.log(`machine: ${machine()}; ${load()} at start`);

function hostFor(crm: 'hubspot' | 'salesforce'): Promise<EmulatorHost> {
  return startEmulatorHost({
    salesIntel: {
      companies: COMPANIES,
      persons: PERSONS,
      windowSeconds: RATES.windowSeconds,
      faults: { latency: LATENCY },
      accounts: [{ ...SI_CLIENT, limits: { search: RATES.limit, count: RATES.limit, dictionary: RATES.limit } }],
    },
    ...(crm === 'hubspot'
      ? {
          hubspot: { accessTokens: [HUBSPOT_TOKEN], limits: { perTenSeconds: RATES.hubspotPer10s, daily: 10_000_000 } },
        }
      : { salesforce: { clients: [SF_CLIENT], apiDailyLimit: 10_000_000, faults: { latencyMs: SF_LATENCY_MS } } }),
  });
}

/** Waits for the start of the next API window so the run's windows are whole ones, then zeroes the counters. */
async function alignedReset(host: EmulatorHost): Promise<void> {
  const w = RATES.windowSeconds * 1000;
  await new Promise((r) => setTimeout(r, Math.ceil(Date.now() / w) * w - Date.now() + 5));
  await host.reset();
}

async function run(
  host: EmulatorHost,
  cfg: BenchConfig,
  search: string,
  label: string,
  rates: Rates,
): Promise<Record<string, unknown>> {
  await alignedReset(host);
  const loadBefore = load();
  const worker = startWorker(['run', search, '--json', '--config', cfg.file], cfg.env);
  const result = await worker.done;
  const stats = await host.stats();
  let summary: RunSummary;
  try {
    summary = lastJson<RunSummary>(result.stdout);
  } catch {
    throw new Error(`${label}: worker exited ${result.exitCode} without a summary: ${result.stderr.slice(-2000)}`);
  }
  const f = { ...figures(label, summary, result, stats, rates), loadBefore, loadAfter: load() };
  console.log(JSON.stringify(f));
  out.push(f);
  return f;
}

const redis = createRedis(REDIS_URL);
try {
  if (WHICH === 'hubspot' || WHICH === 'both') {
    const host = await hostFor('hubspot');
    const cfg = writeBenchConfig(host, {
      name: 'e2e-hs',
      limits: { search: RATES.limit, windowSeconds: RATES.windowSeconds },
      credits: { maxPerRun: Math.max(1, PERSONS), maxPerDay: Math.max(2, PERSONS * 2) },
      searches: [companiesSearch('companies-hs', 'hs', 'companies'), personsSearch('persons-hs', 'hs', 'contacts')],
    });
    try {
      await run(host, cfg, 'companies-hs', `HubSpot: ${COMPANIES} companies`, RATES);
      const again = await run(host, cfg, 'companies-hs', 'HubSpot: unchanged re-sync of the companies', RATES);
      console.log(
        `re-sync: HubSpot writes ${(again.hubspot as { writes: number }).writes}, HubSpot ` +
          `requests ${(again.hubspot as { requests: number }).requests}`,
      );
      if (PERSONS > 0)
        await run(host, cfg, 'persons-hs', `HubSpot: ${PERSONS} persons with contacts, associated`, RATES);
    } finally {
      await deleteKeysUnder(redis, cfg.prefix);
      await host.stop();
    }
  }
  if (WHICH === 'salesforce' || WHICH === 'both') {
    const host = await hostFor('salesforce');
    const sfRates: Rates = { limit: RATES.limit, windowSeconds: RATES.windowSeconds };
    const cfg = writeBenchConfig(host, {
      name: 'e2e-sf',
      limits: { search: RATES.limit, windowSeconds: RATES.windowSeconds },
      credits: { maxPerRun: Math.max(1, PERSONS), maxPerDay: Math.max(2, PERSONS * 2) },
      searches: [
        companiesSearch('companies-sf', 'sf-bulk', 'Account'),
        personsSearch('persons-sf', 'sf-collections', 'Contact'),
      ],
    });
    try {
      await run(host, cfg, 'companies-sf', `Salesforce Bulk API 2.0: ${COMPANIES} Accounts`, sfRates);
      if (PERSONS > 0)
        await run(
          host,
          cfg,
          'persons-sf',
          `Salesforce collections: ${PERSONS} Contacts with contacts, linked`,
          sfRates,
        );
    } finally {
      await deleteKeysUnder(redis, cfg.prefix);
      await host.stop();
    }
  }
} finally {
  redis.disconnect();
}
if (process.env.BENCH_OUT) writeFileSync(process.env.BENCH_OUT, JSON.stringify(out, null, 1));
