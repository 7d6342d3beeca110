/** The mirror's figures on /metrics: counters from the run totals of complete runs (real Redis, the real registry). */
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SavedSearch } from '../../src/config/index.js';
import { recordRun } from '../../src/runs/run-history.js';
import { emptyCounts, type RunSummary } from '../../src/runs/run-summary.js';
import { createMetricsEndpoint } from '../../src/server/index.js';
import { testRedis } from '../helpers/redis.js';

let redis: Redis;
let prefix: string;
let cleanup: () => Promise<void>;
beforeAll(async () => ({ redis, prefix, cleanup } = await testRedis('mirror-metrics')));
afterAll(async () => cleanup());

describe('mirror metrics', () => {
  it('records entered and left, leave actions and list adds and removes are counters per search', async () => {
    const at = new Date().toISOString();
    const run = (runId: string, extra: Partial<RunSummary>): RunSummary => ({
      search: 'icp',
      status: 'completed',
      ...emptyCounts(),
      durationMs: 1,
      runId,
      startedAt: at,
      finishedAt: at,
      dryRun: false,
      partitions: 1,
      ...extra,
    });
    await recordRun(redis, run('a', { entered: 40, listAdded: 38 }), { prefix });
    await recordRun(redis, run('b', { entered: 2, left: 3, leaveActions: 1, listAdded: 2, listRemoved: 1 }), {
      prefix,
    });
    // A dry run's figures are a forecast: never counted.
    await recordRun(
      redis,
      run('c', { dryRun: true, entered: 5, left: 5, leaveActions: 5, listAdded: 5, listRemoved: 5 }),
      { prefix },
    );
    const search = { name: 'icp', destination: 'crm' } as SavedSearch;
    const metrics = createMetricsEndpoint({ redis, prefix, queues: [], searches: () => [search] });
    const { status, body } = await metrics.render();
    expect(status).toBe(200);
    expect(body).toContain('prospect_sync_records_entered_total{search="icp",destination="crm"} 42');
    expect(body).toContain('prospect_sync_records_left_total{search="icp",destination="crm"} 3');
    expect(body).toContain('prospect_sync_leave_actions_total{search="icp",destination="crm"} 1');
    expect(body).toContain('prospect_sync_list_members_added_total{search="icp",destination="crm"} 40');
    expect(body).toContain('prospect_sync_list_members_removed_total{search="icp",destination="crm"} 1');
  });
});
