/**
 * A streamed plan (jobs/sync-search/plan-run.ts `startPlan`): journeys start on partitions as the split settles
 * them, and a run stopped before its split was done resumes from the checkpoint's settled partitions and pending
 * pieces. Real emulators, real Redis; pages and counts are slowed (250 ms), and the split's second round is held
 * (503s on counts) so the first write comes while the split goes on.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { syncSearch } from '../../jobs/sync-search.js';
import type { RunPlan } from '../../jobs/sync-search/plan-run.js';
import type { RunCheckpoint } from '../../src/runs/checkpoint-store.js';
import {
  COMPANY_FILTER,
  COMPANY_SEARCH,
  hubspotConfig,
  hubspotValues,
  startFixture,
  WORKER_ACCOUNT,
  type Fixture,
} from './sync-fixture.js';

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

const PAGE = 100;
const JOURNEYS = 3;

describe('a plan streamed into the walk', () => {
  it(
    'a run stopped mid-split resumes with its partitions and the pieces left: every record once, nothing paid ' +
      'twice, only the rest split',
    { timeout: 60_000 },
    async () => {
      fx = await startFixture('streamed-plan', {
        salesIntel: { companies: 10_000 },
        account: { limits: { search: 100_000, count: 100_000, dictionary: 100_000 } },
      });
      const f = fx;
      const config = f.config(hubspotConfig(COMPANY_SEARCH, `  pageSize: ${PAGE}\n  parallelism: ${JOURNEYS}`));
      const expected = await f.oracleIds('companies', COMPANY_FILTER);
      f.si.resetStats();
      f.si.faults.set({ latency: { fixedMs: 250, jitterMs: 0 } });
      const saved = async (): Promise<RunCheckpoint | null> => {
        const raw = await f.redis.get(`${f.prefix}:run:all-companies:checkpoint`);
        return raw ? (JSON.parse(raw) as RunCheckpoint) : null;
      };

      // 1. Once the first partitions are settled (in the checkpoint), the counts of the split's next round answer 503
      // (retried with backoff: seconds), so the walk runs while the split is held; the run is stopped (shutdown) as
      // soon as its first batch is written.
      const stop = new AbortController();
      let atStop: RunCheckpoint | null = null;
      const running = syncSearch(f.deps(config), {
        search: 'all-companies',
        runId: 'streamed-1',
        signal: stop.signal,
        onProgress: () => {
          if (stop.signal.aborted) return;
          stop.abort();
          void saved().then((cp) => {
            atStop = cp;
          });
        },
      });
      for (let cp = await saved(); !cp || cp.partitions.length === 0; cp = await saved())
        await new Promise((r) => setTimeout(r, 10));
      f.si.faults.set({ serverErrors: { share: 1, routes: ['companies.count'] } });
      const first = await running;
      f.si.faults.set({ serverErrors: null });
      expect(first).toMatchObject({ status: 'failed', stopReason: 'aborted' });
      const kept = await saved();
      // the first pages were written before the plan was complete, and the checkpoint says how far the split got
      expect(atStop).not.toBeNull();
      expect(kept!.plan!.complete).toBe(false);
      expect(kept!.plan!.pending.length).toBeGreaterThan(0);
      expect(kept!.counts.fetched).toBeGreaterThan(0);
      // the settled partitions and the pending pieces cover the whole count
      const covered =
        kept!.partitions.reduce((n, p) => n + (p.count ?? 0), 0) + kept!.plan!.pending.reduce((n, p) => n + p.count, 0);
      expect(covered).toBe(kept!.counted);
      const countsBefore = f.si.stats(WORKER_ACCOUNT.accountId).operations.count;

      // 2. Resumed: the same partitions go on, only the pending pieces are split
      let plan: RunPlan | undefined;
      const second = await syncSearch(f.deps(config), {
        search: 'all-companies',
        runId: 'streamed-1',
        onPlan: (p) => {
          plan = p;
        },
      });
      expect(second).toMatchObject({ status: 'completed', unique: expected.length, throttled: 0 });
      expect(hubspotValues(f.hubspot!, 'companies', 'prospect_sync_id')).toEqual(expected);
      expect(plan!.partitions.map((p) => p.filter)).toEqual(
        expect.arrayContaining(kept!.partitions.map((p) => p.filter)),
      );
      expect(plan!.partitions.reduce((n, p) => n + p.count, 0)).toBe(kept!.counted);
      // no free count again, nothing settled split again: at most the counts the split had left (the emulator may
      // also count, late, requests of the round the stop cut short)
      expect(plan!.countRequests).toBeGreaterThan(0);
      expect(plan!.countRequests).toBeLessThanOrEqual(kept!.plan!.countsLeft);
      expect(f.si.stats(WORKER_ACCOUNT.accountId).operations.count).toBeLessThanOrEqual(
        countsBefore + kept!.plan!.countsLeft,
      );
      // a stop costs at most what was fetched and not yet written: per journey a write batch and a prefetched page
      const charged = f.si.stats(WORKER_ACCOUNT.accountId).tokensCharged;
      expect(charged).toBeGreaterThanOrEqual(expected.length);
      expect(charged - expected.length).toBeLessThanOrEqual(JOURNEYS * (100 + PAGE));
    },
  );
});
