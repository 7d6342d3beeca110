/**
 * A queued run survives its worker process dying again and again: each SIGKILL leaves the job stalled, a new worker
 * process recovers it from its checkpoint, and the CRM ends exactly as expected (every record once). BullMQ's
 * default `maxStalledCount` (1) would fail the job at the second stall.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { enqueueRun, openQueues, type AppQueues } from '../../src/queue/index.js';
import type { RunCheckpoint } from '../../src/runs/checkpoint-store.js';
import { listRuns } from '../../src/runs/run-history.js';
import { createRedis } from '../../src/shared/redis.js';
import { waitFor, workerPool, type WorkerPool } from '../helpers/worker-process.js';
import { COMPANY_FILTER, COMPANY_SEARCH, hubspotConfig, hubspotValues, startFixture, type Fixture } from './sync-fixture.js';

const KILLS = 3;

let fx: Fixture | undefined;
let queues: AppQueues | undefined;
let pool: WorkerPool | undefined;
let dir: string | undefined;
const connection = createRedis(process.env.REDIS_URL);

afterEach(async () => {
  await pool?.killAll();
  await queues?.close();
  await fx?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
  connection.disconnect();
  fx = queues = pool = dir = undefined;
});

describe('worker processes killed repeatedly', () => {
  it(`a queued run whose worker is SIGKILLed ${KILLS} times completes, with the exact CRM state`, async () => {
    // slow pages so each worker is killed mid-run
    fx = await startFixture('worker-kills', { salesIntel: { companies: 600, faults: { latency: { fixedMs: 100, jitterMs: 0 } } } });
    const f = fx;
    const expected = await f.oracleIds('companies', COMPANY_FILTER);
    dir = await mkdtemp(join(tmpdir(), 'ps-kills-'));
    const configFile = join(dir, 'config.yaml');
    await writeFile(configFile, hubspotConfig(COMPANY_SEARCH, '  pageSize: 20\n  parallelism: 2'));
    queues = openQueues({ connection, prefix: f.prefix });
    const checkpointFetched = async (): Promise<number> => {
      const raw = await f.redis.get(`${f.prefix}:run:all-companies:checkpoint`);
      return raw ? (JSON.parse(raw) as RunCheckpoint).counts.fetched : 0;
    };

    pool = workerPool(configFile, f.prefix, f.env);
    let proc = await pool.spawn();
    const { jobId } = await enqueueRun(queues.sync, 'all-companies', 'manual');
    let last = 0;
    for (let k = 0; k < KILLS; k++) {
      // this worker has made progress of its own (a checkpoint past the previous one), then it dies
      last = await waitFor(async () => {
        const n = await checkpointFetched();
        return n >= last + 60 ? n : undefined;
      }, 30_000, `progress before kill ${k + 1}`);
      expect(last).toBeLessThan(expected.length);
      await pool.kill(proc);
      proc = await pool.spawn();
    }

    const q = queues;
    const state = await waitFor(async () => {
      const s = await q.sync.getJobState(jobId);
      return s === 'completed' || s === 'failed' ? s : undefined;
    }, 60_000, 'the job ends');
    expect(state).toBe('completed');
    const final = (await listRuns(f.redis, 'all-companies', { prefix: f.prefix })).find((r) => r.runId === jobId && r.status === 'completed');
    expect(final).toBeDefined();
    const job = await queues.sync.getJob(jobId);
    expect(job?.attemptsStarted ?? 0).toBeGreaterThan(KILLS);
    // every record exactly once, nothing missing
    expect(hubspotValues(f.hubspot!, 'companies', 'prospect_sync_id')).toEqual(expected);
    // counters come from the checkpoint: a batch written but not checkpointed before a kill is written again and
    // then found unchanged (or updated, when the kill fell between the CRM write and its change hashes), so each
    // record is counted once either way
    expect((final?.created ?? 0) + (final?.updated ?? 0) + (final?.unchanged ?? 0)).toBe(expected.length);
  }, 120_000);
});
