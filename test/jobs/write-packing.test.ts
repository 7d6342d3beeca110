/**
 * Partial writes of several partitions packed into full CRM writes (jobs/sync-search/write-packer.ts): counted on
 * the HubSpot emulator's upsert requests, with exact per-record accounting (created, rejects with their reasons)
 * and an aborted run that still writes everything it paid for and resumes without fetching anything twice.
 * Real emulators (HubSpot driven by the real client), real Redis.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syncSearch } from '../../jobs/sync-search.js';
import type { WalkStats } from '../../jobs/sync-search/walk-context.js';
import { createRejectStore } from '../../src/crm/index.js';
import { CheckpointStore } from '../../src/runs/checkpoint-store.js';
import {
  COMPANY_FILTER,
  COMPANY_SEARCH,
  hubspotConfig,
  hubspotValues,
  startFixture,
  type Fixture,
} from './sync-fixture.js';

let fx: Fixture;
beforeAll(async () => {
  fx = await startFixture('write-packing', {
    salesIntel: { companies: 900 },
    account: { limits: { search: 100_000, count: 100_000, dictionary: 100_000 } },
  });
});
afterAll(async () => fx.close());

/** HubSpot upserts one record at most once per request: records per request are what packing changes. */
function upserts(): { requests: number; records: number } {
  return { requests: fx.hubspot!.stats.byRoute.upsert ?? 0, records: fx.hubspot!.stats.inputs };
}

/** Records of each partition of a plan (the oracle walks each filter): the writes an unpacked walk would make. */
async function unpackedWrites(filters: unknown[], batch: number): Promise<number> {
  const sizes = await Promise.all(filters.map(async (f) => (await fx.oracleIds('companies', f)).length));
  return sizes.reduce((n, size) => n + Math.ceil(size / batch), 0);
}

describe('write packing (real emulators, real HubSpot client, real Redis)', () => {
  it('partial last batches of many partitions go out as full HubSpot writes, each record booked exactly', async () => {
    // pageSize 30: a HubSpot write is 100 records, so most batches are 3 pages + a partial one, and every
    // partition's last batch is partial; at most 12 journeys walk the 20-odd partitions, often only one (the
    // emulators answer in milliseconds: the sizing asks for one), and held batches let the next partitions start.
    const config = fx.config(hubspotConfig(COMPANY_SEARCH, '  pageSize: 30\n  parallelism: 12'));
    const expected = await fx.oracleIds('companies', COMPANY_FILTER);
    const refused = expected.filter((_, i) => i % 97 === 5);
    fx.hubspot!.faults.reject = { values: new Set(refused), mode: 'record' };
    const before = upserts();
    let filters: unknown[] = [];
    let walk: WalkStats | undefined;
    try {
      const summary = await syncSearch(fx.deps(config), {
        search: 'all-companies',
        runId: 'pack-1',
        onPlan: (p) => {
          filters = p.partitions.map((x) => x.filter);
        },
        onWalk: (w) => {
          walk = w;
        },
      });
      expect(summary).toMatchObject({
        status: 'completed',
        fetched: expected.length,
        created: expected.length - refused.length,
        rejected: refused.length,
        updated: 0,
      });
      expect(summary.warnings?.count).toBe(refused.length);
    } finally {
      fx.hubspot!.faults.reject = { values: new Set(), mode: 'record' };
    }
    const after = upserts();
    const requests = after.requests - before.requests;
    expect(after.records - before.records).toBe(expected.length);
    expect(hubspotValues(fx.hubspot!, 'companies', 'prospect_sync_id').filter((v) => !refused.includes(v))).toEqual(
      expected.filter((k) => !refused.includes(k)),
    );
    // the rejects were split back to the batches that held them: each stored once, with its key
    const rejects = createRejectStore(fx.redis, fx.prefix);
    expect((await rejects.list('all-companies')).map((r) => r.key).sort()).toEqual(refused);

    expect(filters.length).toBeGreaterThan(4);
    const unpacked = await unpackedWrites(filters, 100);
    const full = Math.ceil(expected.length / 100);
    // Packed: full writes but for the few a flush let go early (every journey waiting, the hold time, the end).
    expect(walk!.packedWrites).toBeGreaterThan(0);
    expect(requests).toBeLessThan(unpacked);
    expect(requests).toBeLessThanOrEqual(full + 3);
    expect(requests).toBeGreaterThanOrEqual(full);
  });

  it(
    'an aborted run writes every page it paid for, keeps exact counts, and its resume fetches nothing ' + 'twice',
    async () => {
      const config = fx.config(
        hubspotConfig(
          COMPANY_SEARCH.replace('field: prospect_sync_id', 'field: abort_sync_id'),
          '  pageSize: 30\n  parallelism: 6',
        ),
      );
      const expected = await fx.oracleIds('companies', COMPANY_FILTER);
      fx.si.resetStats();
      const stop = new AbortController();
      const first = await syncSearch(fx.deps(config), {
        search: 'all-companies',
        runId: 'pack-abort',
        signal: stop.signal,
        onProgress: (p) => {
          if (p.fetched >= 300) stop.abort();
        },
      });
      expect(first).toMatchObject({ status: 'failed', stopReason: 'aborted' });
      expect(first.fetched).toBeLessThan(expected.length);
      // Everything fetched was written and booked: HubSpot holds exactly the booked records, all paid pages counted.
      const landed = hubspotValues(fx.hubspot!, 'companies', 'abort_sync_id').filter((v) => v !== '');
      expect(landed.length).toBe(first.created);
      expect(first.created).toBe(first.fetched);
      // (a page request in flight when the abort came is cancelled: charged by the API, never received)
      const chargedFirst = fx.si.stats('worker').tokensCharged;
      expect(chargedFirst - first.fetched).toBeLessThanOrEqual(6 * 30);
      const cp = await new CheckpointStore(fx.redis, 'all-companies', { prefix: fx.prefix }).load('pack-abort');
      expect(cp?.counts.created).toBe(first.created);

      const second = await syncSearch(fx.deps(config), { search: 'all-companies', runId: 'pack-abort' });
      expect(second).toMatchObject({
        status: 'completed',
        fetched: expected.length,
        created: expected.length,
        updated: 0,
        unchanged: 0,
      });
      expect(hubspotValues(fx.hubspot!, 'companies', 'abort_sync_id').filter((v) => v !== '')).toEqual(expected);
      // the resume pays only for what the first attempt did not write: nothing written was fetched again
      expect(fx.si.stats('worker').tokensCharged - chargedFirst).toBe(expected.length - first.fetched);
    },
  );
});
