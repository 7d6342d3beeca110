/**
 * Records/s written into the HubSpot emulator through the full CRM pipeline (mapping, change detection in Redis,
 * @hubspot/api-client batch upserts) with HubSpot's Pro limit of 190 requests per 10 s, against HubSpot's own
 * ceiling of 190 × 100 records / 10 s = 1,900 records/s. Run: npx tsx bench/crm-hubspot.ts [records]
 */
import { compileFieldMapping, createCrmWriter, createHubSpotSink } from '../src/crm/index.js';
import { DEFAULT_HUBSPOT_TOKEN, startHubSpotEmulator } from '../src/emulators/hubspot/index.js';
import { testRedis } from '../test/helpers/redis.js';

const TOTAL = Number(process.argv[2] ?? 100_000);
const PER_10S = 190;
const CEILING = (PER_10S * 100) / 10;
const CHUNK = 1000; // records handed to the writer at a time, like one source page group

const emu = await startHubSpotEmulator({ limits: { perTenSeconds: PER_10S, daily: 1_000_000 } });
// A unique key prefix, deleted afterwards: the bench shares Redis with everything else.
const { redis, prefix: keyPrefix, cleanup } = await testRedis('bench-crm-hubspot');
const sink = createHubSpotSink({
  accessToken: DEFAULT_HUBSPOT_TOKEN,
  baseUrl: emu.url,
  requestsPer10s: PER_10S,
  redis,
  keyPrefix,
});
const writer = createCrmWriter({ sink, redis, keyPrefix, destination: 'bench', searchName: 'bench' });
const mapping = compileFieldMapping(
  {
    matchOn: { field: 'prospect_sync_id', from: 'id' },
    fields: {
      name: 'name',
      domain: { from: 'website', transform: 'domain' },
      numberofemployees: 'headcount',
      industry: 'industry',
      country: 'country',
    },
  },
  { object: 'companies' },
);
const records = Array.from({ length: TOTAL }, (_, i) => ({
  id: `c_${i}`,
  name: `Company ${i} GmbH`,
  website: `https://www.company${i}.example/`,
  headcount: 10 + (i % 5000),
  industry: 'software',
  country: 'DE',
}));

async function pass(label: string): Promise<void> {
  const started = performance.now();
  const requestsBefore = emu.stats.requests;
  const totals = { created: 0, updated: 0, unchanged: 0, rejected: 0 };
  for (let i = 0; i < records.length; i += CHUNK) {
    const result = await writer.write(records.slice(i, i + CHUNK), mapping, { runVolume: TOTAL });
    for (const k of Object.keys(totals) as (keyof typeof totals)[]) totals[k] += result[k];
  }
  const seconds = (performance.now() - started) / 1000;
  const rate = TOTAL / seconds;
  console.log(
    `${label}: ${TOTAL} records in ${seconds.toFixed(1)} s = ${rate.toFixed(0)} records/s` +
      ` (${(rate / CEILING).toFixed(3)} × the 1,900 records/s ceiling); ` +
      `requests ${emu.stats.requests - requestsBefore},` +
      ` 429s ${emu.stats.throttled.TEN_SECONDLY_ROLLING}, ${JSON.stringify(totals)}`,
  );
  // Fewer requests than one window allows never meet the limit: the ratio then says nothing about the ceiling.
  if (emu.stats.requests - requestsBefore > 0 && emu.stats.requests - requestsBefore <= PER_10S) {
    console.log(
      `  (only ${emu.stats.requests - requestsBefore} requests: under one 10 s window, so the ratio is not ` +
        `meaningful; use >= 100,000 records)`,
    );
  }
}

try {
  await writer.prepare(mapping.target);
  await pass('first run (all created)');
  console.log(`emulator holds ${emu.state.count('companies')} companies`);
  await pass('second run (unchanged, change detection)');
} finally {
  await cleanup();
  await sink.close();
  await emu.close();
}
