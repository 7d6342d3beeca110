/**
 * Cost of the worker process (issue 12): CPU ms per 1,000 records and peak RSS of a real `prospect-sync run`
 * process, at two sizes, `--dry-run` and into HubSpot. The emulators run in ANOTHER process (this script re-runs
 * itself with `serve`), so the figures are the worker's alone. CPU and peak RSS come from GNU time (user + sys,
 * max RSS) around the worker process; the per-record cost is the slope between the two sizes, so process start
 * (module load, config, Redis connect, plan) is reported apart as the intercept.
 *
 * The package is fast on purpose (1,000 searches per 10 s window, 20 ms page latency, HubSpot at 1,000 requests
 * per 10 s): this measures CPU per record, not throughput.
 *
 * Run: npx tsx bench/worker-cost-slope.ts [small=30000] [large=150000] [--runtime=dist|tsx] [--mode=dry,hubspot]
 *      [--cpu-prof=dir] [--reps=1]
 * `--runtime=dist` runs `node dist/src/cli/main.js` (build first: `npm run build`); `tsx` runs the TypeScript source
 * through tsx, as `bin/prospect-sync.js` does when there is no dist/. Needs Redis ($REDIS_URL, default DB 0).
 * WC_WORKER_NODE_OPTIONS: NODE_OPTIONS for the worker process only (e.g. `--max-old-space-size=64`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const SEARCHES_PER_WINDOW = 1_000;
const WINDOW_S = 10;
const LATENCY_MS = 20;
const HUBSPOT_PER_10S = 1_000;
const PARALLELISM = 8;

if (process.argv[2] === 'serve') await serve(Number(process.argv[3]));
else await main();

/** Child: the Sales-Intelligence and HubSpot emulators; prints their URLs as one JSON line, exits when stdin closes. */
async function serve(companies: number): Promise<void> {
  const { startSalesIntelEmulator } = await import('../src/emulators/sales-intel/index.js');
  const { startHubSpotEmulator } = await import('../src/emulators/hubspot/index.js');
  const limits = { search: SEARCHES_PER_WINDOW, count: SEARCHES_PER_WINDOW, dictionary: SEARCHES_PER_WINDOW };
  const si = await startSalesIntelEmulator({
    companies,
    persons: 1_000,
    windowSeconds: WINDOW_S,
    accounts: [{ clientId: 'bench', clientSecret: 'bench-secret', accountId: 'bench', limits }],
    faults: { latency: { fixedMs: LATENCY_MS, jitterMs: 0 } },
  });
  const hubspot = await startHubSpotEmulator({
    port: 0,
    accessTokens: ['bench-token'],
    limits: { perTenSeconds: HUBSPOT_PER_10S },
  });
  process.stdout.write(`${JSON.stringify({ si: si.url, token: si.tokenUrl, hubspot: hubspot.url })}\n`);
  process.stdin.resume();
  process.stdin.on('end', () => {
    void Promise.all([si.close(), hubspot.close()]).then(() => process.exit(0));
  });
}

interface Urls {
  si: string;
  token: string;
  hubspot: string;
}
interface Measure {
  records: number;
  cpuMs: number;
  rssMb: number;
  wallS: number;
  status: string;
  throttled: number;
}

function arg(name: string): string | undefined {
  return process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
}

async function startEmulators(companies: number): Promise<{ urls: Urls; child: ChildProcess }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(import.meta.url), 'serve', String(companies)],
    {
      cwd: root,
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`emulator host exited ${code}`)));
  });
  return { urls: JSON.parse(line) as Urls, child };
}

function configYaml(urls: Urls, name: string): string {
  return (
    `
source:
  baseUrl: ${urls.si}
  auth: {tokenUrl: "${urls.token}", clientId: bench, clientSecret: "\${WC_SI_SECRET}"}
  parallelism: ${PARALLELISM}
  fallbackLimits: {search: ${SEARCHES_PER_WINDOW}, count: ${SEARCHES_PER_WINDOW}, ` +
    `dictionary: ${SEARCHES_PER_WINDOW}, windowSeconds: ${WINDOW_S}}
destinations:
  crm: {type: hubspot, accessToken: "\${WC_HUBSPOT_TOKEN}", baseUrl: "${urls.hubspot}", ` +
    `requestsPer10s: ${HUBSPOT_PER_10S}}
searches:
  - name: ${name}
    segment: icp
    entity: companies
    filter: {company: {headcount: {gte: 1}}}
    destination: crm
    object: companies
    matchOn: {field: prospect_sync_id, from: id}
    fields: {name: name, domain: domain, numberofemployees: headcount, city: city}
`
  );
}

/** One worker process: `run <search> --json [--dry-run]` under GNU time; its summary and its CPU and peak RSS. */
async function runWorker(
  urls: Urls,
  dry: boolean,
  runtime: string,
  profDir: string | undefined,
  tag: string,
): Promise<Measure> {
  const dir = mkdtempSync(join(tmpdir(), 'worker-cost-'));
  const config = join(dir, 'bench.yaml');
  writeFileSync(config, configYaml(urls, 'bench'));
  const node = join(root, 'node_modules', 'node', 'bin', 'node');
  const entry =
    runtime === 'tsx'
      ? ['--import', 'tsx', join(root, 'src', 'cli', 'main.ts')]
      : [join(root, 'dist', 'src', 'cli', 'main.js')];
  const prof = profDir ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`, `--cpu-prof-name=${tag}.cpuprofile`] : [];
  const timeFile = join(dir, 'time');
  const args = [
    '-f',
    '%U %S %M %e',
    '-o',
    timeFile,
    node,
    ...prof,
    ...entry,
    'run',
    'bench',
    '--json',
    '--config',
    config,
    ...(dry ? ['--dry-run'] : []),
  ];
  const prefix = `${process.env.QUEUE_PREFIX ?? 'bench'}-wc-${randomUUID().slice(0, 6)}`;
  const child = spawn('/usr/bin/time', args, {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: {
      ...process.env,
      ...(process.env.WC_WORKER_NODE_OPTIONS ? { NODE_OPTIONS: process.env.WC_WORKER_NODE_OPTIONS } : {}),
      QUEUE_PREFIX: prefix,
      WC_SI_SECRET: 'bench-secret',
      WC_HUBSPOT_TOKEN: 'bench-token',
    },
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
  });
  await new Promise((resolve) => child.once('exit', resolve));
  const [user, sys, maxKb, wall] = readFileSync(timeFile, 'utf8').trim().split('\n').at(-1)!.split(' ').map(Number) as [
    number,
    number,
    number,
    number,
  ];
  const summary = JSON.parse(out.trim().split('\n').at(-1) ?? '{}') as {
    fetched?: number;
    status?: string;
    throttled?: number;
  };
  await cleanRedis(prefix);
  if (summary.fetched === undefined) throw new Error(`no run summary from the worker: ${out.trim().slice(-2000)}`);
  return {
    records: summary.fetched ?? 0,
    cpuMs: (user + sys) * 1000,
    rssMb: maxKb / 1024,
    wallS: wall,
    status: summary.status ?? '?',
    throttled: summary.throttled ?? 0,
  };
}

async function cleanRedis(prefix: string): Promise<void> {
  const { createRedis, deleteKeysUnder } = await import('../src/shared/redis.js');
  const redis = createRedis(process.env.REDIS_URL);
  await deleteKeysUnder(redis, prefix);
  redis.disconnect();
}

async function main(): Promise<void> {
  const sizes = process.argv
    .slice(2)
    .filter((a) => /^\d+$/.test(a))
    .map(Number);
  const [small, large] = [sizes[0] ?? 30_000, sizes[1] ?? 150_000];
  const runtime = arg('runtime') ?? 'dist';
  const modes = (arg('mode') ?? 'dry,hubspot').split(',');
  const profDir = arg('cpu-prof');
  const reps = Number(arg('reps') ?? 1);
  console.log(
    `worker-cost: runtime ${runtime}, ${SEARCHES_PER_WINDOW} searches / ${WINDOW_S} s, ${LATENCY_MS} ms ` +
      `latency, parallelism ${PARALLELISM}, HubSpot ${HUBSPOT_PER_10S} / 10 s`,
  );
  for (const mode of modes) {
    const at: Measure[] = [];
    for (const size of [small, large]) {
      let best: Measure | undefined;
      for (let r = 0; r < reps; r++) {
        // a fresh emulator per run: HubSpot starts empty, so every run with writes creates every record
        const emu = await startEmulators(size);
        try {
          const m = await runWorker(emu.urls, mode === 'dry', runtime, profDir, `${runtime}-${mode}-${size}-${r}`);
          console.log(
            `  ${mode} ${size}: ${m.status}, ${m.records} records, CPU ${m.cpuMs.toFixed(0)} ms ` +
              `(${(m.cpuMs / (m.records / 1000)).toFixed(1)} ms per 1,000 incl. start), peak ` +
              `RSS ${m.rssMb.toFixed(0)} MB, wall ${m.wallS.toFixed(1)} s, 429s ${m.throttled}`,
          );
          if (!best || m.cpuMs < best.cpuMs) best = m; // least-disturbed repetition on a shared machine
        } finally {
          emu.child.stdin!.end();
          await new Promise((resolve) => emu.child.once('exit', resolve));
        }
      }
      at.push(best!);
    }
    const [a, b] = at as [Measure, Measure];
    const slope = (b.cpuMs - a.cpuMs) / ((b.records - a.records) / 1000);
    const start = a.cpuMs - slope * (a.records / 1000);
    console.log(
      `${mode}: ${slope.toFixed(1)} ms CPU per 1,000 records (slope ${a.records}->${b.records}); ` +
        `start/fixed ${start.toFixed(0)} ms; peak RSS ${a.rssMb.toFixed(0)} MB / ${b.rssMb.toFixed(0)} MB`,
    );
  }
}
