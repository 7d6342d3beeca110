/**
 * Fill any package (issue 13): one config, no change between cells, over a matrix of search packages
 * (500 / 2,000 / 10,000 searches per minute, as 83 / 333 / 1,667 per 10 s) x page latency (50 / 225 / 800 ms),
 * each a whole run of 100,000+ companies, `--dry-run` and into the HubSpot emulator (190 requests / 10 s).
 * Three processes per cell: the emulators (one host), the worker (this file with `--worker`: the real
 * syncSearch, RSS and CPU are its own) and this driver. Per cell: records/s as a ratio of the ceiling
 * (min(search limit x 100 per window, the CRM's 1,900 records/s)), 429s (API and HubSpot), peak journeys, peak
 * records fetched-but-unwritten, count requests of the plan, worker peak RSS and CPU per 1,000 records (the run
 * only, process start excluded), and `uptime`'s 1-minute load next to each row.
 *
 * A dry run still reads the CRM's current values (created vs updated: one CRM request per 100 records), so at
 * HubSpot's 190 / 10 s the CRM binds above 1,900 records/s in both modes; `--crm-limit 100000` shows the source side.
 *
 * Run all: REDIS_URL=redis://127.0.0.1:6379/10 npx tsx bench/fill-matrix.ts
 * A subset: ... fill-matrix.ts --rates 83,333 --latencies 225 --modes dry [--records 110000] [--crm-limit 190]
 * [--window-seconds 60]
 * Learned CRM limits (issue 27): `--crm-config-limit none` leaves `requestsPer10s` out of the config (the portal's
 * answered limit is learned from its headers), `--jitter-ms 150` with `--latencies 150` gives 150-300 ms pages, e.g.
 * ... fill-matrix.ts --rates 800 --latencies 150 --jitter-ms 150 --records 160000 --crm-limit 250 --crm-config-limit
 * none
 * FILL_SIZING=<file> writes each worker's debug log there (the journey controller's resizes: `journeys resized`).
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { writeFile, mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const self = fileURLToPath(import.meta.url);

const { values } = parseArgs({
  options: {
    worker: { type: 'string' },
    host: { type: 'string' },
    search: { type: 'string' },
    'dry-run': { type: 'boolean' },
    rates: { type: 'string', default: '83,333,1667' },
    latencies: { type: 'string', default: '50,225,800' },
    modes: { type: 'string', default: 'dry,hubspot' },
    records: { type: 'string', default: '110000' },
    /**
     * HubSpot's requests per 10 s (emulator and config alike): 190 (Pro) by default; raise it to see the source side
     * alone.
     */
    'crm-limit': { type: 'string', default: '190' },
    /**
     * The config's `requestsPer10s`: a number, or `none` (learned from the portal's answers); default: `--crm-limit`.
     */
    'crm-config-limit': { type: 'string' },
    /** Page latency spread: each page takes latency + up to this much more (uniform). */
    'jitter-ms': { type: 'string', default: '0' },
    /**
     * The API's rate-limit window (s): 10 by default (short runs), 60 is the documented one. `--rates` stay searches
     * per 10 s (83 = 500 per minute), the emulator's limit per window is scaled to the same rate.
     */
    'window-seconds': { type: 'string', default: '10' },
  },
});

const WINDOW_S = Number(values['window-seconds']);
/** Searches (and counts) per window of the emulator for a rate given per 10 s. */
const perWindow = (ratePer10s: number): number => Math.round((ratePer10s * WINDOW_S) / 10);

const HUBSPOT_PER_10S = Number(values['crm-limit']);
const CONFIG_PER_10S = values['crm-config-limit'] ?? String(HUBSPOT_PER_10S);
if (CONFIG_PER_10S !== 'none' && !(Number(CONFIG_PER_10S) > 0))
  throw new Error(`--crm-config-limit: expected a number or none, got ${CONFIG_PER_10S}`);
const JITTER_MS = Number(values['jitter-ms']);

if (values.host !== undefined) await host(values.host);
else if (values.worker !== undefined) await worker(values.worker, values.search ?? 'fill', values['dry-run'] ?? false);
else await driver();

/** Emulators in their own process: prints their URLs as one JSON line, exits when stdin closes. */
async function host(optionsJson: string): Promise<void> {
  const { startSalesIntelEmulator } = await import('../src/emulators/sales-intel/index.js');
  const { startHubSpotEmulator } = await import('../src/emulators/hubspot/index.js');
  const o = JSON.parse(optionsJson) as {
    rate: number;
    latencyMs: number;
    jitterMs: number;
    companies: number;
    crmLimit: number;
  };
  const limits = { search: perWindow(o.rate), count: perWindow(o.rate), dictionary: perWindow(o.rate) };
  const si = await startSalesIntelEmulator({
    port: 0,
    companies: o.companies,
    persons: 1000,
    windowSeconds: WINDOW_S,
    accounts: [{ clientId: 'fill-client', clientSecret: 'fill-secret', accountId: 'fill', limits }],
    faults: { latency: { fixedMs: o.latencyMs, jitterMs: o.jitterMs } },
  });
  const hubspot = await startHubSpotEmulator({
    port: 0,
    accessTokens: ['fill-token'],
    limits: { perTenSeconds: o.crmLimit },
  });
  process.stdout.write(`${JSON.stringify({ si: si.url, tokenUrl: si.tokenUrl, hubspot: hubspot.url })}\n`);
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', () => {
    const u = process.cpuUsage();
    const { requests, inputs, throttled } = hubspot.stats;
    const usage = {
      cpuMs: (u.user + u.system) / 1000,
      hubspot429: throttled.TEN_SECONDLY_ROLLING,
      hubspotRequests: requests,
      hubspotInputs: inputs,
      hubspotPeak: hubspot.limits.peak,
    };
    process.stdout.write(`${JSON.stringify(usage)}\n`);
  });
  process.stdin.on('end', () => void Promise.all([si.close(), hubspot.close()]).then(() => process.exit(0)));
}

/** The worker: one real run (syncSearch) from a config file; prints one JSON line with its figures. */
async function worker(configPath: string, search: string, dryRun: boolean): Promise<void> {
  const { readFile } = await import('node:fs/promises');
  const { syncSearch } = await import('../jobs/sync-search.js');
  const { parseConfig } = await import('../src/config/index.js');
  const { createLogger, silentLogger } = await import('../src/shared/logger.js');
  const { createWriteStream } = await import('node:fs');
  // FILL_SIZING=<file>: the run's debug log there (the journey controller's resizes among it)
  const logger = process.env.FILL_SIZING
    ? createLogger({ level: 'debug' }, createWriteStream(process.env.FILL_SIZING))
    : silentLogger;
  const { createRedis, deleteKeysUnder } = await import('../src/shared/redis.js');
  const config = parseConfig(await readFile(configPath, 'utf8'), configPath, process.env).config;
  const redis = createRedis(process.env.REDIS_URL);
  const prefix = `${process.env.QUEUE_PREFIX ?? 'fill'}:${randomUUID().slice(0, 8)}`;
  let plan: { partitions: number; countRequests: number; parallelism: number } | undefined;
  let walk: unknown;
  let planMs = 0;
  let firstPageMs: number | undefined;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  try {
    const summary = await syncSearch(
      { config, redis, prefix, logger },
      {
        search,
        runId: randomUUID(),
        dryRun,
        onPlan: (p) => {
          planMs = performance.now() - t0;
          plan = { partitions: p.partitions.length, countRequests: p.countRequests, parallelism: p.parallelism };
        },
        onWalk: (w) => {
          walk = w;
        },
        // The first batch written (the checkpoint's first move): the run's first page, fetched and through the CRM.
        onProgress: () => {
          firstPageMs ??= performance.now() - t0;
        },
      },
    );
    const cpu = process.cpuUsage(cpu0);
    process.stdout.write(
      `${JSON.stringify({
        status: summary.status,
        fetched: summary.fetched,
        durationMs: summary.durationMs,
        throttled: summary.throttled,
        planMs,
        firstPageMs,
        plan,
        walk,
        cpuMs: (cpu.user + cpu.system) / 1000,
        maxRssMb: process.resourceUsage().maxRSS / 1024,
      })}\n`,
    );
  } finally {
    await deleteKeysUnder(redis, prefix);
    redis.disconnect();
  }
}

interface Cell {
  rate: number;
  latencyMs: number;
  mode: 'dry' | 'hubspot';
}

async function driver(): Promise<void> {
  const rates = values.rates.split(',').map(Number);
  const latencies = values.latencies.split(',').map(Number);
  const modes = values.modes.split(',') as Cell['mode'][];
  const companies = Number(values.records);
  const dir = await mkdtemp(join(tmpdir(), 'fill-matrix-'));
  console.log(
    `| package (searches/min) | latency | mode | records | ceiling rec/s | rec/s | ratio | 429 API / HubSpot | ` +
      `journeys peak | unwritten peak | partitions / counts / plan s | first page s | HubSpot requests (records / ` +
      `request) | worker RSS MB | worker CPU ms/1k | emulator CPU ms/1k | load 1m | HubSpot peak requests / window ` +
      `|`,
  );
  console.log(
    `HubSpot answers ${HUBSPOT_PER_10S} requests / 10 s; config requestsPer10s: ${CONFIG_PER_10S}; ` +
      `pages ${values.latencies} ms + up to ${JITTER_MS} ms`,
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  try {
    for (const rate of rates)
      for (const latencyMs of latencies)
        for (const mode of modes) {
          const row = await runCell({ rate, latencyMs, mode }, companies, dir).catch(
            (error: unknown) => `| ${rate * 6} | ${latencyMs} | ${mode} | failed: ${String(error).slice(0, 200)} |`,
          );
          console.log(row);
        }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function runCell(cell: Cell, companies: number, dir: string): Promise<string> {
  const h = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      self,
      '--host',
      JSON.stringify({
        rate: cell.rate,
        latencyMs: cell.latencyMs,
        jitterMs: JITTER_MS,
        companies,
        crmLimit: HUBSPOT_PER_10S,
      }),
      '--window-seconds',
      String(WINDOW_S),
    ],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const lines: string[] = [];
  let wake: (() => void) | undefined;
  let buffer = '';
  h.stdout.setEncoding('utf8');
  h.stdout.on('data', (d: string) => {
    buffer += d;
    const parts = buffer.split('\n');
    buffer = parts.pop() ?? '';
    lines.push(...parts.filter(Boolean));
    wake?.();
  });
  const nextLine = async (): Promise<string> => {
    while (lines.length === 0)
      await new Promise<void>((r) => {
        wake = r;
      });
    return lines.shift() as string;
  };
  try {
    const urls = JSON.parse(await nextLine()) as { si: string; tokenUrl: string; hubspot: string };
    // The same config for every cell (only the emulators' URLs differ): parallelism auto, fallback limits default.
    const config = join(dir, `fill-${randomUUID().slice(0, 6)}.yaml`);
    await writeFile(
      config,
      `
source:
  baseUrl: ${urls.si}
  auth: {tokenUrl: "${urls.tokenUrl}", clientId: fill-client, clientSecret: "\${FILL_SI_SECRET}"}
destinations:
  crm: {type: hubspot, accessToken: "\${FILL_HUBSPOT_TOKEN}", baseUrl: ` +
        `"${urls.hubspot}"${CONFIG_PER_10S === 'none' ? '' : `, requestsPer10s: ${CONFIG_PER_10S}`}}
searches:
  - name: fill
    segment: icp
    entity: companies
    filter: {company: {headcount: {gte: 0}}}
    destination: crm
    object: companies
    matchOn: {field: prospect_sync_id, from: id}
    fields: {name: name, domain: domain, numberofemployees: headcount}
`,
    );
    h.stdin.write('cpu\n');
    const emu0 = JSON.parse(await nextLine()) as { cpuMs: number; hubspotRequests: number; hubspotInputs: number };
    const emuCpu0 = emu0.cpuMs;
    const w = spawn(
      process.execPath,
      ['--import', 'tsx', self, '--worker', config, '--search', 'fill', ...(cell.mode === 'dry' ? ['--dry-run'] : [])],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
        env: {
          ...process.env,
          QUEUE_PREFIX: process.env.QUEUE_PREFIX ?? 'fill',
          FILL_SI_SECRET: 'fill-secret',
          FILL_HUBSPOT_TOKEN: 'fill-token',
        },
      },
    );
    let out = '';
    w.stdout.setEncoding('utf8');
    w.stdout.on('data', (d: string) => {
      out += d;
    });
    const code = await new Promise<number | null>((r) => w.on('close', r));
    if (code !== 0) throw new Error(`worker exited ${code}: ${out.slice(0, 300)}`);
    const r = JSON.parse(out.trim().split('\n').pop() as string) as {
      status: string;
      fetched: number;
      durationMs: number;
      throttled: number;
      planMs: number;
      firstPageMs?: number;
      cpuMs: number;
      maxRssMb: number;
      plan: { partitions: number; countRequests: number; parallelism: number };
      walk: { peakJourneys: number; peakUnwritten: number };
    };
    h.stdin.write('cpu\n');
    const emu = JSON.parse(await nextLine()) as {
      cpuMs: number;
      hubspot429: number;
      hubspotRequests: number;
      hubspotInputs: number;
      hubspotPeak: number;
    };
    // Every HubSpot request of the run (schema checks, reads, upserts, 429s) and the records its batch calls carried.
    const crmRequests = emu.hubspotRequests - emu0.hubspotRequests;
    const crmInputs = emu.hubspotInputs - emu0.hubspotInputs;
    const sourceCeiling = (perWindow(cell.rate) * 100) / WINDOW_S;
    // A dry run reads the CRM's current values (created vs updated) in batches of 100: one CRM request per page, too.
    const ceiling = Math.min(sourceCeiling, (HUBSPOT_PER_10S * 100) / 10);
    const perSecond = r.fetched / (r.durationMs / 1000);
    const k = r.fetched / 1000;
    return (
      `| ${cell.rate * 6}${WINDOW_S === 10 ? '' : ` (${perWindow(cell.rate)}/${WINDOW_S} s)`} ` +
      `| ${cell.latencyMs} ms | ${cell.mode} | ${r.fetched} (${r.status}) ` +
      `| ${ceiling.toFixed(0)}${ceiling < sourceCeiling ? ' (CRM)' : ''} | ${perSecond.toFixed(0)} | ` +
      `**${(perSecond / ceiling).toFixed(2)}** | ${r.throttled} / ${emu.hubspot429} | ${r.walk.peakJourneys} ` +
      `| ${r.walk.peakUnwritten} | ` +
      `${r.plan.partitions} / ${r.plan.countRequests} / ${(r.planMs / 1000).toFixed(1)} ` +
      `| ${r.firstPageMs === undefined ? '—' : (r.firstPageMs / 1000).toFixed(1)} | ${crmRequests} ` +
      `(${(crmInputs / Math.max(1, crmRequests)).toFixed(1)}) | ${r.maxRssMb.toFixed(0)} ` +
      `| ${(r.cpuMs / k).toFixed(0)} | ` +
      `${((emu.cpuMs - emuCpu0) / k).toFixed(0)} | ${loadavg()[0]!.toFixed(1)} | ${emu.hubspotPeak} |`
    );
  } finally {
    h.stdin.end();
    await new Promise((r) => h.on('close', r));
  }
}
