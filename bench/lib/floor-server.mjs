// The far end of bench/cpu-floor.ts, in its own process so its CPU is not the client's: a search route answering a
// fixed page of 100 records (~32 KB, the emulator's size) and a batch-upsert route answering 100 results.
import { createServer } from 'node:http';

const record = (i) => ({
  id: `c-${String(i).padStart(8, '0')}`,
  name: `Company ${i} GmbH & Co. KG`,
  domain: `company-${i}.example.com`,
  website: `https://www.company-${i}.example.com/about`,
  headcount: 10 + (i % 5000),
  revenueUsd: 1_000_000 + i * 37,
  industry: 'Industrial Machinery & Equipment',
  country: 'DE',
  region: 'Baden-Württemberg',
  city: 'Stuttgart',
  postalCode: '70173',
  updatedAt: '2026-11-20T10:00:00.000Z',
});
const page = JSON.stringify({
  data: Array.from({ length: 100 }, (_, i) => record(i)),
  pagination: { next: 'eyJvZmZzZXQiOjEwMCwic2VlZCI6IjEyMzQ1Njc4OTAifQ', total: 1_000_000 },
});
const results = JSON.stringify({
  status: 'COMPLETE',
  results: Array.from({ length: 100 }, (_, i) => ({
    id: String(9_000_000 + i),
    properties: { prospect_sync_id: `c-${i}`, name: `Company ${i}`, hs_lastmodifieddate: '2026-11-23T00:00:00Z' },
    createdAt: '2026-11-23T00:00:00Z',
    updatedAt: '2026-11-23T00:00:00Z',
    archived: false,
    new: true,
  })),
  startedAt: '2026-11-23T00:00:00Z',
  completedAt: '2026-11-23T00:00:01Z',
});

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const body = req.url === '/companies/filter' ? page : results;
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () =>
  console.log(
    JSON.stringify({
      port: server.address().port,
      pageBytes: Buffer.byteLength(page),
      resultBytes: Buffer.byteLength(results),
    }),
  ),
);
