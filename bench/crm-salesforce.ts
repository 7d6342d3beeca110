/**
 * Records per second into the Salesforce emulator through the real jsforce sink, for 100,000 Accounts:
 * sObject Collections (200 per call, 4 calls in flight) vs Bulk API 2.0 (10,000 per job), at 0 ms and at a
 * realistic per-request latency. Run: npx tsx bench/crm-salesforce.ts [records] [latencyMs]
 *
 * Ceilings used for the ratios:
 * - collections: lanes x 200 records per round trip / latency (what the API shape allows at that latency);
 * - bulk: 10,000 records per job / (5 sequential round trips x latency + one poll interval), i.e. a job that costs
 *   only its unavoidable requests (create, upload, close, one status poll, results) and one poll wait;
 * - daily allowance: records a 100,000-request day (Enterprise-sized org) carries at the measured records per request.
 * The emulator runs in a child process so it does not share the sink's CPU (as a real org would not).
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { CrmRecord } from '../src/crm/crm-sink.js';
import { SalesforceSink } from '../src/crm/salesforce/salesforce-sink.js';
import { startSalesforceEmulator } from '../src/emulators/salesforce/salesforce-emulator.js';

const TOTAL = process.argv[2] === '--serve' ? 0 : Number(process.argv[2] ?? 100_000);
const LATENCY = Number(process.argv[3] ?? 50);
const LANES = 4;
const BULK_BATCH = 10_000;
const POLL_MS = 250;
const DAILY_ALLOWANCE = 100_000;
const client = { clientId: 'bench', clientSecret: 'bench-secret' };
const target = {
  object: 'Account',
  matchField: 'Prospect_Sync_Id__c',
  fields: ['Name', 'Website', 'NumberOfEmployees', 'Description'],
};

/** Child mode: serve one emulator, print its URL, exit when stdin closes. */
async function serve(latencyMs: number): Promise<void> {
  const emulator = await startSalesforceEmulator({
    clients: [client],
    apiDailyLimit: 10_000_000,
    bulkProcessingDelayMs: 0,
    bulkRowsPerTick: 5000,
    faults: { latencyMs },
  });
  console.log(JSON.stringify({ url: emulator.url }));
  process.stdin.resume();
  process.stdin.on('end', () => void emulator.close().then(() => process.exit(0)));
}

async function spawnEmulator(latencyMs: number): Promise<{ url: string; stop: () => void }> {
  const child = spawn(process.execPath, [...process.execArgv, import.meta.filename, '--serve', String(latencyMs)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const line = await new Promise<string>((resolve) => createInterface({ input: child.stdout }).once('line', resolve));
  return { url: (JSON.parse(line) as { url: string }).url, stop: () => child.stdin.end() };
}

async function run(records: CrmRecord[], mode: 'collections' | 'bulk', latencyMs: number): Promise<void> {
  const emulator = await spawnEmulator(latencyMs);
  const sink = new SalesforceSink({
    loginUrl: emulator.url,
    ...client,
    maxApiShare: 1,
    concurrency: LANES,
    bulkBatchSize: BULK_BATCH,
    bulkPollIntervalMs: POLL_MS,
    bulkThreshold: mode === 'bulk' ? 0 : Number.MAX_SAFE_INTEGER,
  });
  await sink.prepare(target);
  const usageBefore = sink.apiUsage!.used;
  const batch = sink.preferredBatchSize(TOTAL);
  const started = performance.now();
  let written = 0;
  for (let i = 0; i < TOTAL; i += batch) {
    const out = await sink.upsert(target, records.slice(i, i + batch), { runVolume: TOTAL });
    written += out.filter((o) => o.status === 'created').length;
  }
  const seconds = (performance.now() - started) / 1000;
  // One REST call refreshes Sforce-Limit-Info, which also counts the Bulk API requests; minus that call itself.
  await sink.readCurrent(target, ['bench-0'], ['Name']);
  const calls = sink.apiUsage!.used - usageBefore - 1;
  const rate = written / seconds;
  const ceiling =
    latencyMs === 0
      ? undefined
      : mode === 'collections'
        ? (LANES * 200) / (latencyMs / 1000)
        : BULK_BATCH / ((5 * latencyMs + POLL_MS) / 1000);
  const perCall = written / calls;
  console.log(
    JSON.stringify({
      mode,
      latencyMs,
      records: written,
      seconds: Number(seconds.toFixed(2)),
      recordsPerSecond: Math.round(rate),
      ceilingPerSecond: ceiling === undefined ? null : Math.round(ceiling),
      ratioOfCeiling: ceiling === undefined ? null : Number((rate / ceiling).toFixed(3)),
      apiCalls: calls,
      recordsPerCall: Number(perCall.toFixed(1)),
      recordsPerDailyAllowance: Math.round(perCall * DAILY_ALLOWANCE),
      shareOfAllowanceFor100k: Number((100_000 / perCall / DAILY_ALLOWANCE).toFixed(4)),
    }),
  );
  await sink.close();
  emulator.stop();
}

if (process.argv[2] === '--serve') {
  await serve(Number(process.argv[3] ?? 0));
} else {
  const records: CrmRecord[] = Array.from({ length: TOTAL }, (_, i) => ({
    key: `bench-${i}`,
    properties: {
      Name: `Company ${i} "GmbH", Ünïcode`,
      Website: `https://c${i}.example`,
      NumberOfEmployees: 10 + (i % 5000),
      Description: `Line one\nline two ${i}`,
    },
  }));
  for (const latency of [0, LATENCY]) {
    await run(records, 'collections', latency);
    await run(records, 'bulk', latency);
  }
}
