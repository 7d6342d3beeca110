import { afterEach, describe, expect, it } from 'vitest';
import { syncSearch } from '../../jobs/sync-search.js';
import { runRecordIdsKey } from '../../src/runs/run-record-ids.js';
import type { RunSummary } from '../../src/runs/run-summary.js';
import {
  COMPANY_FILTER,
  COMPANY_SEARCH,
  hubspotConfig,
  hubspotValues,
  startFixture,
  type Fixture,
} from './sync-fixture.js';

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

/** Keys of run `runId`'s record ids (the meta hash and its buckets). */
async function idKeys(f: Fixture, runId: string): Promise<string[]> {
  return f.redis.keys(`${runRecordIdsKey('all-companies', runId, f.prefix)}*`);
}

/** Small pages, a few journeys: a run stopped early has partitions walked part of the way. */
const SEARCH = hubspotConfig(COMPANY_SEARCH, '  pageSize: 30\n  parallelism: 3');

/** An attempt stopped once it fetched 150 records (its checkpoint and ids in Redis kept for a retry, if any). */
async function stoppedAttempt(f: Fixture, runId: string, lastAttempt = false): Promise<RunSummary> {
  const stop = new AbortController();
  return syncSearch(f.deps(f.config(SEARCH)), {
    search: 'all-companies',
    runId,
    signal: stop.signal,
    lastAttempt,
    onProgress: (p) => {
      if (p.fetched >= 150) stop.abort();
    },
  });
}

describe("a run's record ids (its dedup set) in Redis", () => {
  it(
    'a resumed attempt dedups against what the earlier attempt wrote: a journey walked again from page 1 writes ' +
      'nothing twice, and nothing is lost',
    async () => {
      fx = await startFixture('ids-resume', { salesIntel: { companies: 900 } });
      const expected = await fx.oracleIds('companies', COMPANY_FILTER);
      const first = await stoppedAttempt(fx, 'resume-1');
      expect(first).toMatchObject({ status: 'failed', stopReason: 'aborted' });
      expect(first.unique).toBeGreaterThan(0);
      expect(first.unique).toBeLessThan(expected.length);
      // The earlier attempt's ids are in Redis (not in the process that wrote them).
      expect(await idKeys(fx, 'resume-1')).not.toEqual([]);

      // The resumed attempt's first cursor page is refused: that journey walks its partition again from page 1,
      // through the records the first attempt wrote.
      fx.si.faults.set({ forceInvalidCursor: 1 });
      const last = await syncSearch(fx.deps(fx.config(SEARCH)), { search: 'all-companies', runId: 'resume-1' });
      expect(fx.si.faults.current().forceInvalidCursor).toBe(0);
      expect(last.status).toBe('completed');
      // Every record once: what the first attempt wrote is not kept (nor written) again.
      expect(last.unique).toBe(expected.length);
      expect(last).toMatchObject({ created: expected.length, updated: 0, unchanged: 0 });
      expect(last.fetched).toBeGreaterThan(expected.length);
      expect(hubspotValues(fx.hubspot!, 'companies', 'prospect_sync_id')).toEqual(expected);
    },
  );

  it('are gone after the run: completed, failed on its last attempt, and a dry run', async () => {
    fx = await startFixture('ids-gone', { salesIntel: { companies: 900 } });
    const config = fx.config(SEARCH);
    let during: string[] = [];
    const completed = await syncSearch(fx.deps(config), {
      search: 'all-companies',
      runId: 'gone-1',
      onProgress: () => {
        void idKeys(fx!, 'gone-1').then((keys) => (during = keys.length > during.length ? keys : during));
      },
    });
    expect(completed.status).toBe('completed');
    expect(during).not.toEqual([]);
    expect(await idKeys(fx, 'gone-1')).toEqual([]);

    // A failed attempt that a retry resumes keeps them; the last attempt's failure drops them with its checkpoint.
    expect((await stoppedAttempt(fx, 'gone-2')).status).toBe('failed');
    expect(await idKeys(fx, 'gone-2')).not.toEqual([]);
    expect((await stoppedAttempt(fx, 'gone-2', true)).status).toBe('failed');
    expect(await idKeys(fx, 'gone-2')).toEqual([]);
    expect(await fx.redis.exists(`${fx.prefix}:run:all-companies:checkpoint`)).toBe(0);

    let dryDuring: string[] = [];
    const dry = await syncSearch(fx.deps(config), {
      search: 'all-companies',
      runId: 'gone-3',
      dryRun: true,
      onProgress: () => {
        void idKeys(fx!, 'gone-3').then((keys) => (dryDuring = keys.length > dryDuring.length ? keys : dryDuring));
      },
    });
    expect(dry.status).toBe('completed');
    expect(dryDuring).not.toEqual([]);
    expect(await idKeys(fx, 'gone-3')).toEqual([]);
  });
});
