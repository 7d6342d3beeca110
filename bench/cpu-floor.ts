/**
 * What the chosen stack costs at least per 1,000 records, before any of our own logic: the CPU of a client that
 * only moves the bytes a synced page needs. Per page of 100 records, cumulatively:
 *   1. the search request over undici (keep-alive Agent, as src/source/http-transport.ts) and its 32 KB body read;
 *   2. + JSON.parse of that body;
 *   3. + the CRM write: a 100-record batch body stringified and POSTed over node:http keep-alive (the transport the
 *      HubSpot client uses), its answer read and parsed;
 *   4. + the fewest Redis round trips that keep a shared rate limit across processes: one grant and one settle per
 *      search and per CRM call (4 per page; the worker makes ~5 (dry) to ~7 (writes));
 *   4b. step 4 with the CRM write over undici instead (the transport the HubSpot client does not use).
 * The far end runs in another process (bench/lib/floor-server.mjs). Run:
 *   REDIS_URL=redis://127.0.0.1:6379/9 npx tsx bench/cpu-floor.ts [pages=2000] [inFlight=8]
 * Prints CPU ms per 1,000 records for each step, and the RSS of a process that loaded only undici and ioredis.
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { Redis } from 'ioredis';
import { load, machine } from './lib/machine.js';

const PAGES = Number(process.argv[2] ?? 2000);
const IN_FLIGHT = Number(process.argv[3] ?? 8);
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/9';

const server = spawn(process.execPath, [fileURLToPath(new URL('./lib/floor-server.mjs', import.meta.url))], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
const { port, pageBytes, resultBytes } = await new Promise<{ port: number; pageBytes: number; resultBytes: number }>(
  (resolve) => {
    server.stdout.once('data', (d: Buffer) =>
      resolve(JSON.parse(d.toString()) as { port: number; pageBytes: number; resultBytes: number }),
    );
  },
);
const base = `http://127.0.0.1:${port}`;
const dispatcher = new Agent({ keepAliveTimeout: 30_000, connections: IN_FLIGHT });
const crmAgent = new http.Agent({ keepAlive: true, maxSockets: IN_FLIGHT });
const redis = new Redis(REDIS_URL);
const GRANT = `local n = redis.call('INCR', KEYS[1]) redis.call('PEXPIRE', KEYS[1], 60000) return n`;
const SETTLE = `redis.call('HINCRBY', KEYS[1], '2xx', 1) return 1`;
const keys = { log: 'cpu-floor:grant', stats: 'cpu-floor:stats' };

async function search(parse: boolean): Promise<unknown[]> {
  const res = await request(`${base}/companies/filter`, {
    method: 'POST',
    dispatcher,
    headers: { 'content-type': 'application/json', authorization: 'Bearer x' },
    body: '{"filter":{"company":{"headcount":{"gte":1,"lte":1000000}}},"limit":100,"cursor":"eyJvZmZzZXQiOjEwMH0"}',
  });
  const text = await res.body.text();
  return parse ? (JSON.parse(text) as { data: unknown[] }).data : [];
}

const crmBody = (records: unknown[]): string =>
  JSON.stringify({
    inputs: records.map((r) => ({ idProperty: 'prospect_sync_id', id: (r as { id: string }).id, properties: r })),
  });

/** The same write over undici (what it would cost if the CRM calls left the HubSpot client's transport). */
async function crmWriteUndici(records: unknown[]): Promise<unknown> {
  const res = await request(`${base}/crm/v3/objects/companies/batch/upsert`, {
    method: 'POST',
    dispatcher,
    headers: { 'content-type': 'application/json' },
    body: crmBody(records),
  });
  return JSON.parse(await res.body.text());
}

function crmWrite(records: unknown[]): Promise<unknown> {
  const body = crmBody(records);
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${base}/crm/v3/objects/companies/batch/upsert`,
      {
        method: 'POST',
        agent: crmAgent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function governed<T>(use: boolean, call: () => Promise<T>): Promise<T> {
  if (use) await redis.eval(GRANT, 1, keys.log);
  const out = await call();
  if (use) await redis.eval(SETTLE, 1, keys.stats);
  return out;
}

async function step(parse: boolean, write: boolean, govern: boolean, overUndici = false): Promise<number> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next++ < PAGES) {
      const records = await governed(govern, () => search(parse));
      if (write) await governed(govern, () => (overUndici ? crmWriteUndici(records) : crmWrite(records)));
    }
  };
  const before = process.cpuUsage();
  await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000 / ((PAGES * 100) / 1000);
}

console.log(
  `machine: ${machine()}; ${load()}; page ${pageBytes} B, CRM answer ${resultBytes} B, ${PAGES} ` +
    `pages, ${IN_FLIGHT} in flight`,
);
console.log(`RSS with undici + ioredis loaded and connected: ${Math.round(process.memoryUsage().rss / 1e6)} MB`);
await step(true, true, true); // warm-up: connections, JIT
const steps: [string, boolean, boolean, boolean, boolean][] = [
  ['1. search request + body', false, false, false, false],
  ['2. + JSON.parse of the page', true, false, false, false],
  ['3. + CRM batch write (stringify, POST, parse answer)', true, true, false, false],
  ['4. + 4 Redis round trips per page (grant + settle, search and CRM)', true, true, true, false],
  ['4b. step 4 with the CRM write over undici', true, true, true, true],
];
for (const [label, parse, write, govern, overUndici] of steps) {
  const runs = [
    await step(parse, write, govern, overUndici),
    await step(parse, write, govern, overUndici),
    await step(parse, write, govern, overUndici),
  ];
  console.log(
    `| ${label} | ${Math.min(...runs).toFixed(1)} ms per 1,000 records (least of ` +
      `3: ${runs.map((r) => r.toFixed(1)).join(', ')}) |`,
  );
}
console.log(`peak RSS ${Math.round(process.resourceUsage().maxRSS / 1024)} MB; ${load()}`);
await redis.del(keys.log, keys.stats);
redis.disconnect();
await dispatcher.close();
crmAgent.destroy();
server.kill();
