/**
 * Records per second from one cursor journey vs. P partitioned journeys at 200 ms page latency, as a share of the
 * account's ceiling (search limit x 100 records per window), with a compressed window; plus the client's CPU time
 * per 1,000 records (the emulator runs in another process). Run: npx tsx bench/source-throughput.ts [P]
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { createSourceClient, type Filter, type SourceClient } from '../src/source/index.js';
import { testRedis } from '../test/helpers/redis.js';

const LIMIT = 60;
const WINDOW_S = 2;
const LATENCY_MS = 200;
const DURATION_MS = 16_000;
const P = Number(process.argv[2] ?? 8);
const CEILING = (LIMIT * 100) / WINDOW_S;

const host = spawn(
  process.execPath,
  [
    '--import',
    'tsx',
    fileURLToPath(new URL('./source-emulator-host.ts', import.meta.url)),
    JSON.stringify({
      companies: 400_000,
      persons: 1000,
      windowSeconds: WINDOW_S,
      accounts: [
        {
          clientId: 'demo-client',
          clientSecret: 'demo-secret',
          accountId: 'demo',
          limits: { search: LIMIT, count: 10_000, dictionary: 10_000 },
        },
      ],
    }),
  ],
  { stdio: ['pipe', 'pipe', 'inherit'] },
);
const { url, tokenUrl } = await new Promise<{ url: string; tokenUrl: string }>((resolve) => {
  host.stdout.once('data', (d: Buffer) =>
    resolve(JSON.parse(d.toString().trim().split('\n')[0]!) as { url: string; tokenUrl: string }),
  );
});
const control = async (method: string, path: string, body?: unknown): Promise<unknown> =>
  (
    await fetch(`${url}/__emulator/${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
  ).json();

// Same namespacing and cleanup as the tests: the bench shares the Redis server.
const { redis, prefix, cleanup } = await testRedis('bench-source');
const newClient = (): SourceClient =>
  createSourceClient({
    baseUrl: url,
    auth: { tokenUrl, clientId: 'demo-client', clientSecret: 'demo-secret' },
    redis,
    keyPrefix: `${prefix}:${randomUUID().slice(0, 4)}`,
    fallbackLimits: { search: LIMIT, count: 500, dictionary: 500, windowSeconds: WINDOW_S },
  });

interface Result {
  records: number;
  seconds: number;
  requests: number;
  throttled: number;
  cpuMsPer1000: number;
}

async function walkFor(client: SourceClient, filters: Filter[]): Promise<Result> {
  // Warm up outside the measurement: token, connections, and the search limit learned from the headers.
  for await (const _page of client.journey('companies', filters[0]!, { runId: 'warm-up', maxRecords: 1 })) {
    // one record
  }
  // Start on a server window boundary so the allowance is exactly windows x limit.
  const windowMs = WINDOW_S * 1000;
  await new Promise((r) => setTimeout(r, Math.ceil(Date.now() / windowMs) * windowMs - Date.now()));
  await control('POST', 'reset');
  const stop = AbortSignal.timeout(DURATION_MS);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let records = 0;
  await Promise.all(
    filters.map(async (filter, i) => {
      try {
        for await (const page of client.journey('companies', filter, { runId: `bench-${i}`, signal: stop }))
          records += page.returned;
      } catch (error) {
        if (!stop.aborted) throw error;
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const stats = (await control('GET', 'stats?accountId=demo')) as {
    operations: { search: number };
    served429: { search: number };
  };
  return {
    records,
    seconds,
    requests: stats.operations.search,
    throttled: stats.served429.search,
    cpuMsPer1000: (cpu.user + cpu.system) / 1000 / (records / 1000),
  };
}

const filter = { company: { headcount: { gte: 1 } } };
await control('POST', 'faults', { latency: { fixedMs: LATENCY_MS, jitterMs: 0 } });

const single = newClient();
const one = await walkFor(single, [filter]);
const many = newClient();
const parts = await many.partition('companies', filter, {
  pieceRecords: Math.ceil((await many.count('companies', filter)) / P),
});
const multi = await walkFor(
  many,
  parts.map((p) => p.filter),
);

const line = (name: string, r: Result): string => {
  const rate = r.records / r.seconds;
  return (
    `${name.padEnd(26)} ${rate.toFixed(0).padStart(6)} records/s  ${(rate / CEILING).toFixed(3)} of ceiling  ` +
    `${r.requests} search requests (${((r.requests / ((LIMIT * r.seconds) / WINDOW_S)) * 100).toFixed(1)}% of ` +
    `allowed), 429s: ${r.throttled}, ` +
    `client CPU ${r.cpuMsPer1000.toFixed(2)} ms / 1,000 records`
  );
};
console.log(
  `ceiling: ${LIMIT} searches / ${WINDOW_S} s x 100 records = ${CEILING} records/s; page latency ${LATENCY_MS} ` +
    `ms; ${DURATION_MS / 1000} s per scenario`,
);
console.log(line('1 journey', one));
console.log(line(`${parts.length} partitioned journeys`, multi));
console.log(`speed-up: ${(multi.records / multi.seconds / (one.records / one.seconds)).toFixed(2)}x`);

await single.close();
await many.close();
await cleanup();
host.stdin.end();
