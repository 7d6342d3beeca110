/**
 * The worker-kill scenario, shared by test/chaos/worker-kills.test.ts (small, in CI) and bench/chaos-kills.ts (more
 * records and kills): a queued run whose worker OS process is SIGKILLed at random moments, a new worker process
 * started after each kill. Returns what the run left (job state, CRM difference) and what the kills cost (tokens
 * beyond one per record, recovery time per kill: from the kill until the run's checkpoint moves again).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HUBSPOT_BATCH_SIZE } from '../../src/crm/hubspot/hubspot-limits.js';
import { createPrng } from '../../src/emulators/sales-intel/hash.js';
import { enqueueRun, openQueues, type AppQueues } from '../../src/queue/index.js';
import type { RunCheckpoint } from '../../src/runs/checkpoint-store.js';
import { listRuns } from '../../src/runs/run-history.js';
import type { RunSummary } from '../../src/runs/run-summary.js';
import { createRedis } from '../../src/shared/redis.js';
import { diffCrmState, expectedRows, hubspotRows, type CrmDiff } from '../helpers/crm-state.js';
import { waitFor, workerPool } from '../helpers/worker-process.js';
import {
  COMPANY_FILTER,
  COMPANY_SEARCH,
  hubspotConfig,
  startFixture,
  WORKER_ACCOUNT,
  type Fixture,
} from '../jobs/sync-fixture.js';

export interface KillScenarioOptions {
  companies: number;
  kills: number;
  /** Seed of the kill moments (same seed, same delays). */
  seed?: number;
  pageSize?: number;
  parallelism?: number;
  /** Page latency of the emulator, so a run lasts long enough to be killed several times. */
  latencyMs?: number;
  /** Longest random wait (ms) once a kill's point is reached, so it lands anywhere in a batch (not at a checkpoint). */
  maxKillDelayMs?: number;
  /** Rate-limit window of the emulator (seconds): benches shorten it so large datasets do not wait minutes. */
  windowSeconds?: number;
  timeoutMs?: number;
  /** More environment for the worker processes (`WORKER_LOCKS=production`: the production lock settings). */
  workerEnv?: Record<string, string>;
}

export interface KillScenarioResult {
  state: string;
  kills: number;
  records: number;
  tokensCharged: number;
  /** Records fetched (checkpoint) when each kill happened. */
  fetchedAtKill: number[];
  /** Per kill: ms from the SIGKILL until the run's checkpoint moved past where it was. */
  recoveryMs: number[];
  attemptsStarted: number;
  run: RunSummary | undefined;
  diff: CrmDiff;
  /** Records one kill can make us fetch again: per journey, one write batch (unsaved) + one prefetched page. */
  refetchBoundPerKill: number;
  wallMs: number;
}

const FIELDS = { name: 'name', domain: 'domain', numberofemployees: 'headcount' };

export async function runKillScenario(o: KillScenarioOptions): Promise<KillScenarioResult> {
  const pageSize = o.pageSize ?? 20;
  const parallelism = o.parallelism ?? 2;
  const random = createPrng(o.seed ?? 12);
  const started = Date.now();
  let fx: Fixture | undefined;
  let queues: AppQueues | undefined;
  let dir: string | undefined;
  let pool: ReturnType<typeof workerPool> | undefined;
  const connection = createRedis(process.env.REDIS_URL);
  try {
    fx = await startFixture('chaos-kills', {
      salesIntel: {
        companies: o.companies,
        persons: 10,
        ...(o.windowSeconds ? { windowSeconds: o.windowSeconds } : {}),
      },
    });
    const f = fx;
    const expected = expectedRows(await f.oracleRecords('companies', COMPANY_FILTER), 'id', FIELDS);
    f.si.resetStats();
    // slow pages for the run only (the oracle walked at full speed)
    f.si.faults.set({ latency: { fixedMs: o.latencyMs ?? 100, jitterMs: 0 } });
    dir = await mkdtemp(join(tmpdir(), 'ps-chaos-kills-'));
    const configFile = join(dir, 'config.yaml');
    await writeFile(
      configFile,
      hubspotConfig(COMPANY_SEARCH, `  pageSize: ${pageSize}\n  parallelism: ${parallelism}`),
    );
    queues = openQueues({ connection, prefix: f.prefix });
    pool = workerPool(configFile, f.prefix, { ...f.env, ...o.workerEnv });
    const fetched = async (): Promise<number> => {
      const raw = await f.redis.get(`${f.prefix}:run:all-companies:checkpoint`);
      return raw ? (JSON.parse(raw) as RunCheckpoint).counts.fetched : 0;
    };
    const timeoutMs = o.timeoutMs ?? 60_000;

    let proc = await pool.spawn();
    const { jobId } = await enqueueRun(queues.sync, 'all-companies', 'manual');
    const q = queues;
    const ended = async (): Promise<string | undefined> => {
      const s = await q.sync.getJobState(jobId);
      return s === 'completed' || s === 'failed' ? s : undefined;
    };
    const fetchedAtKill: number[] = [];
    const recoveryMs: number[] = [];
    // Kill points: random shares of the run (5%..75%, leaving the last kill time to land before the run ends), sorted;
    // each kill waits for its point, then a random delay.
    const points = Array.from({ length: o.kills }, () => Math.round((0.05 + 0.7 * random()) * expected.size)).sort(
      (a, b) => a - b,
    );
    let killedAt = 0;
    let last = 0;
    for (let k = 0; k < o.kills; k++) {
      // This worker made progress of its own (the checkpoint moved past the last kill's)...
      const moved = await waitFor(
        async () => ((await ended()) ? -1 : (await fetched()) > last ? Date.now() : undefined),
        timeoutMs,
        `progress before kill ${k + 1}`,
      );
      if (moved < 0) break; // the run ended before this kill: reported as fewer kills
      if (k > 0) recoveryMs.push(moved - killedAt);
      // ...reached this kill's point, and dies at a random moment after it
      const point = points[k]!;
      const reached = await waitFor(
        async () => ((await ended()) ? false : (await fetched()) >= point ? true : undefined),
        timeoutMs * 4,
        `point of kill ${k + 1}`,
      );
      if (!reached) break;
      await new Promise((r) => setTimeout(r, Math.round(random() * (o.maxKillDelayMs ?? 800))));
      if (await ended()) break;
      await pool.kill(proc);
      killedAt = Date.now();
      last = await fetched();
      fetchedAtKill.push(last);
      proc = await pool.spawn();
    }
    const recovered = await waitFor(
      async () => ((await fetched()) > last || (await ended()) ? Date.now() : undefined),
      timeoutMs,
      'progress after the last kill',
    );
    if (fetchedAtKill.length > 0) recoveryMs.push(recovered - killedAt);
    const state = await waitFor(ended, timeoutMs * 2, 'the job ends');
    const job = await queues.sync.getJob(jobId);
    const run = (await listRuns(f.redis, 'all-companies', { prefix: f.prefix })).find(
      (r) => r.runId === jobId && r.status === 'completed',
    );
    const writeBatch = Math.max(pageSize, Math.min(2_000, HUBSPOT_BATCH_SIZE));
    return {
      state,
      kills: fetchedAtKill.length,
      records: expected.size,
      tokensCharged: f.si.stats(WORKER_ACCOUNT.accountId).tokensCharged,
      fetchedAtKill,
      recoveryMs,
      attemptsStarted: job?.attemptsStarted ?? 0,
      run,
      diff: diffCrmState(hubspotRows(f.hubspot!, 'companies', 'prospect_sync_id', Object.keys(FIELDS)), expected),
      refetchBoundPerKill: parallelism * (writeBatch + pageSize),
      wallMs: Date.now() - started,
    };
  } finally {
    await pool?.killAll();
    await queues?.close();
    await fx?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
    connection.disconnect();
  }
}
