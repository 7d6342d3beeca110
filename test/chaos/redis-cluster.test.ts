/**
 * Chaos: a queued run on a Redis Cluster (3 masters started by the test). The queue prefix is hash-tagged
 * (`{prospect-sync}`), so every key of one script, MULTI or BullMQ call hashes to one slot; REDIS_URL is a
 * `redis+cluster://` seed list (src/shared/redis.ts). The run is triggered through the queue, a worker process takes
 * it, then the scheduler role (leader lease, job scheduler, ticks) starts another; HubSpot ends exactly as expected
 * and every key we wrote lies under the prefix on one node.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { enqueueRun, openQueues, startScheduler } from '../../src/queue/index.js';
import { listRuns } from '../../src/runs/run-history.js';
import { listGovernorSnapshots } from '../../src/shared/governor-snapshots.js';
import { silentLogger } from '../../src/shared/logger.js';
import { createRedis, deleteKeysUnder } from '../../src/shared/redis.js';
import { closeAfterEach } from '../helpers/closers.js';
import { diffCrmState, expectedRows, hubspotRows, NO_DIFF } from '../helpers/crm-state.js';
import { waitFor, workerPool } from '../helpers/worker-process.js';
import { COMPANY_FILTER, COMPANY_SEARCH, hubspotConfig, startFixture } from '../jobs/sync-fixture.js';
import { startLocalCluster, type LocalCluster } from './local-cluster.js';

const FIELDS = { name: 'name', domain: 'domain', numberofemployees: 'headcount' };
const PREFIX = '{prospect-sync}';

let cluster: LocalCluster | undefined;
afterAll(async () => {
  await cluster?.destroy();
});

describe('chaos: Redis Cluster', () => {
  const closers = closeAfterEach();

  it(
    'a triggered and a scheduled run complete through the queue on a 3-master cluster with a hash-tagged ' + 'prefix',
    async () => {
      cluster = await startLocalCluster();
      const fx = await startFixture('chaos-cluster', { salesIntel: { companies: 800, persons: 10 } });
      closers.push(() => fx.close());
      const expected = expectedRows(await fx.oracleRecords('companies', COMPANY_FILTER), 'id', FIELDS);
      const dir = await mkdtemp(join(tmpdir(), 'ps-chaos-cluster-'));
      closers.push(() => rm(dir, { recursive: true, force: true }));
      const configFile = join(dir, 'config.yaml');
      await writeFile(configFile, hubspotConfig(COMPANY_SEARCH, '  pageSize: 50\n  parallelism: 2'));

      const conn = createRedis(cluster.url);
      closers.push(async () => conn.disconnect());
      expect((conn as unknown as { isCluster?: boolean }).isCluster).toBe(true);
      const queues = openQueues({ connection: conn, prefix: PREFIX });
      closers.push(() => queues.close());
      const pool = workerPool(configFile, PREFIX, { ...fx.env, REDIS_URL: cluster.url });
      closers.push(() => pool.killAll());
      await pool.spawn();

      const { jobId } = await enqueueRun(queues.sync, 'all-companies', 'manual');
      const state = await waitFor(
        async () => {
          const s = await queues.sync.getJobState(jobId);
          return s === 'completed' || s === 'failed' ? s : undefined;
        },
        90_000,
        'the job ends',
      );
      const job = await queues.sync.getJob(jobId);
      expect({ state, failedReason: job?.failedReason }).toEqual({ state: 'completed', failedReason: undefined });
      const run = (await listRuns(conn, 'all-companies', { prefix: PREFIX })).find((r) => r.runId === jobId);
      expect(run).toMatchObject({ status: 'completed', created: expected.size });
      expect(
        diffCrmState(hubspotRows(fx.hubspot!, 'companies', 'prospect_sync_id', Object.keys(FIELDS)), expected),
      ).toEqual(NO_DIFF);

      // The scheduler role on the cluster: it takes the leader lease, writes the job scheduler, its tick enqueues a run
      // and the worker process completes it (nothing changed: every record unchanged).
      const scheduler = await startScheduler({
        ctx: { connection: conn, prefix: PREFIX },
        queues,
        logger: silentLogger,
        loadSearches: async () => [{ name: 'all-companies', schedule: { every: 1_000 } }],
      });
      closers.push(() => scheduler.close());
      expect(scheduler.isLeader).toBe(true);
      const scheduled = await waitFor(
        async () =>
          (await listRuns(conn, 'all-companies', { prefix: PREFIX })).find(
            (r) => r.runId !== jobId && r.status === 'completed',
          ),
        60_000,
        'a scheduled run completes',
      );
      expect(scheduled).toMatchObject({ unchanged: expected.size, created: 0, updated: 0 });
      await scheduler.close();
      expect(
        diffCrmState(hubspotRows(fx.hubspot!, 'companies', 'prospect_sync_id', Object.keys(FIELDS)), expected),
      ).toEqual(NO_DIFF);

      // every key (BullMQ's, the run's, the governor's, the ledger's, the change hashes) under the prefix, so one slot
      const perNode = await cluster.keysPerNode();
      const all = perNode.flat();
      expect(all.length).toBeGreaterThan(5);
      expect(all.filter((k) => !k.startsWith(`${PREFIX}:`))).toEqual([]);
      expect(perNode.filter((keys) => keys.length > 0)).toHaveLength(1);
      expect(all.some((k) => k.includes(':gov:'))).toBe(true);
      expect(all.some((k) => k.includes(':run:all-companies:history'))).toBe(true);
      expect(all.some((k) => k.includes(':prospect-sync-ticks:'))).toBe(true);

      // what reads keys by pattern (/metrics' governor snapshots, the demo's clean-up) sees every master, not one
      for (let i = 0; i < 5; i++)
        expect((await listGovernorSnapshots(conn, PREFIX)).map((g) => g.remote)).toContain('hubspot');
      await pool.killAll();
      await queues.close();
      await deleteKeysUnder(conn, PREFIX);
      expect((await cluster.keysPerNode()).flat()).toEqual([]);
    },
    150_000,
  );
});
