/**
 * The sync job through the real queue: BullMQ scheduler and workers (F1's bootstrap) running jobs/sync-search.ts
 * against the emulators, including worker processes killed with SIGKILL or stopped with SIGTERM mid-run.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeEntry } from '../helpers/node-entry.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createSyncProcessor } from '../../jobs/sync-search.js';
import { startRoles, type RunningRoles } from '../../src/cli/commands/start.js';
import { enqueueRun, startSyncWorker, type SyncWorkerHandle } from '../../src/queue/index.js';
import { listRuns } from '../../src/runs/run-history.js';
import type { RunCheckpoint } from '../../src/runs/checkpoint-store.js';
import type { RunSummary } from '../../src/runs/run-summary.js';
import { silentLogger } from '../../src/shared/logger.js';
import { createRedis } from '../../src/shared/redis.js';
import {
  COMPANY_FILTER,
  COMPANY_SEARCH,
  hubspotConfig,
  hubspotValues,
  startFixture,
  type Fixture,
} from '../jobs/sync-fixture.js';

const CHILD = fileURLToPath(new URL('./sync-worker-child.ts', import.meta.url));
const CONTRACT_FIELDS = [
  'search',
  'status',
  'counted',
  'fetched',
  'unique',
  'created',
  'updated',
  'unchanged',
  'rejected',
  'tokensSpent',
  'creditsSpent',
  'requests',
  'throttled',
  'durationMs',
];

let fx: Fixture | undefined;
let roles: RunningRoles | undefined;
let extraWorker: { handle: SyncWorkerHandle; close: () => void } | undefined;
let child: ChildProcess | undefined;
let dir: string | undefined;

afterEach(async () => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  await roles?.close(2_000);
  if (extraWorker) {
    await extraWorker.handle.shutdown(2_000);
    extraWorker.close();
  }
  await fx?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
  fx = roles = extraWorker = child = dir = undefined;
});

async function waitFor<T>(probe: () => Promise<T | undefined | false>, timeoutMs: number, what: string): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > until) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const start = async (f: Fixture, yaml: string, r: { scheduler?: boolean; worker?: boolean }): Promise<RunningRoles> => {
  roles = await startRoles({
    roles: { scheduler: r.scheduler ?? false, worker: r.worker ?? false, dashboard: false },
    config: f.config(yaml),
    configPath: 'unused.yaml',
    logger: silentLogger,
    prefix: f.prefix,
  });
  return roles;
};

const completedRun = (f: Fixture, search: string, runId?: string): Promise<RunSummary> =>
  waitFor(
    async () =>
      (await listRuns(f.redis, search, { prefix: f.prefix })).find(
        (r) => r.status === 'completed' && (!runId || r.runId === runId),
      ),
    45_000,
    `completed run of ${search}`,
  );

/** A worker in this process with short lock / stall settings (so it recovers a killed worker's run quickly). */
function inProcessWorker(f: Fixture, yaml: string): void {
  const connection = createRedis(process.env.REDIS_URL);
  const config = f.config(yaml);
  extraWorker = {
    handle: startSyncWorker({
      ctx: { connection, prefix: f.prefix },
      processor: createSyncProcessor({
        config,
        redis: connection,
        prefix: f.prefix,
        logger: silentLogger,
        lockTtlMs: 3_000,
      }),
      logger: silentLogger,
      lockDuration: 2_000,
      stalledInterval: 1_000,
    }),
    close: () => connection.disconnect(),
  };
}

async function spawnWorker(f: Fixture, yaml: string): Promise<{ proc: ChildProcess; exited: Promise<number | null> }> {
  dir ??= await mkdtemp(join(tmpdir(), 'ps-e2e-'));
  const file = join(dir, 'config.yaml');
  await writeFile(file, yaml);
  const proc = spawn(process.execPath, [...nodeEntry(CHILD), file, f.prefix], {
    env: { ...process.env, ...f.env, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child = proc;
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    proc.stdout?.on('data', (d: Buffer) => d.toString().includes('ready') && resolve());
    proc.on('exit', (code) => reject(new Error(`worker child exited early (${code})`)));
  });
  return { proc, exited };
}

const checkpointOf = async (f: Fixture, search: string): Promise<RunCheckpoint | null> => {
  const raw = await f.redis.get(`${f.prefix}:run:${search}:checkpoint`);
  return raw ? (JSON.parse(raw) as RunCheckpoint) : null;
};

// Slow enough pages that a run is still going when the test interrupts it.
const SLOW = { salesIntel: { faults: { latency: { fixedMs: 120, jitterMs: 0 } } } };
const SLOW_SOURCE = '  pageSize: 20\n  parallelism: 2';

describe('sync job through BullMQ', () => {
  it('a scheduled (every) run lands exactly the expected records; the job returns the contract summary', async () => {
    fx = await startFixture('e2e-scheduled');
    const expected = await fx.oracleIds('companies', COMPANY_FILTER);
    const r = await start(
      fx,
      hubspotConfig(COMPANY_SEARCH.replace('    destination: crm', '    schedule: {every: 60s}\n    destination: crm')),
      { scheduler: true, worker: true },
    );
    const summary = await completedRun(fx, 'all-companies');
    expect(summary).toMatchObject({ created: expected.length, counted: expected.length });
    expect(hubspotValues(fx.hubspot!, 'companies', 'prospect_sync_id')).toEqual(expected);
    // the history entry is written just before BullMQ marks the job completed
    const job = await waitFor(async () => (await r.queues.sync.getCompleted())[0], 10_000, 'completed job');
    for (const field of CONTRACT_FIELDS) expect(job.returnvalue).toHaveProperty(field);
    expect(job.data.trigger).toBe('schedule');
  });

  it('a manual trigger while a run is queued is reported, not doubled', async () => {
    fx = await startFixture('e2e-trigger');
    const r = await start(fx, hubspotConfig(COMPANY_SEARCH), {});
    const first = await enqueueRun(r.queues.sync, 'all-companies', 'manual');
    const second = await enqueueRun(r.queues.sync, 'all-companies', 'manual');
    expect(first.deduplicated).toBe(false);
    expect(second).toMatchObject({ deduplicated: true, jobId: first.jobId });
    await roles!.close(1_000);
    roles = undefined;
    await start(fx, hubspotConfig(COMPANY_SEARCH), { worker: true });
    await completedRun(fx, 'all-companies', first.jobId);
    const runs = await listRuns(fx.redis, 'all-companies', { prefix: fx.prefix });
    expect(runs.length).toBe(1);
  });

  it('a queued run that finds another run (e.g. a CLI run) holding the search is reported, not run', async () => {
    fx = await startFixture('e2e-busy');
    await fx.redis.set(`${fx.prefix}:run:all-companies:lock`, 'cli-run', 'PX', 30_000);
    const r = await start(fx, hubspotConfig(COMPANY_SEARCH), { worker: true });
    const { jobId } = await enqueueRun(r.queues.sync, 'all-companies', 'manual');
    const job = await waitFor(
      async () => (await r.queues.sync.getJobState(jobId)) === 'completed' && r.queues.sync.getJob(jobId),
      10_000,
      'completed job',
    );
    expect(job?.returnvalue).toMatchObject({ status: 'failed', error: { code: 'run_already_active' } });
    expect((await listRuns(fx.redis, 'all-companies', { prefix: fx.prefix }))[0]).toMatchObject({
      runId: jobId,
      error: { code: 'run_already_active' },
    });
    expect(fx.si.stats('worker').operations.search).toBe(0);
    expect(fx.hubspot!.state.count('companies')).toBe(0);
  });

  it(
    '402 exhausted mid-run: the job is delayed (no attempt burned) and resumes after the reset with no loss or ' +
      'duplicate',
    async () => {
      fx = await startFixture('e2e-402', { account: { tokenAllotment: 130, tokenPeriodSeconds: 2 } });
      const expected = await fx.oracleIds('companies', COMPANY_FILTER);
      const r = await start(fx, hubspotConfig(COMPANY_SEARCH), { worker: true });
      const { jobId } = await enqueueRun(r.queues.sync, 'all-companies', 'manual');
      const final = await completedRun(fx, 'all-companies', jobId);
      const history = await listRuns(fx.redis, 'all-companies', { prefix: fx.prefix });
      expect(history.filter((h) => h.status === 'delayed').length).toBeGreaterThan(0);
      expect(history.every((h) => h.runId === jobId)).toBe(true);
      expect(final).toMatchObject({ created: expected.length, tokensSpent: fx.si.stats('worker').tokensCharged });
      expect(hubspotValues(fx.hubspot!, 'companies', 'prospect_sync_id')).toEqual(expected);
      const job = await waitFor(
        async () => (await r.queues.sync.getJobState(jobId)) === 'completed' && r.queues.sync.getJob(jobId),
        10_000,
        'completed job',
      );
      expect(job?.attemptsMade ?? 99).toBeLessThanOrEqual(1);
      expect(job?.attemptsStarted ?? 0).toBeGreaterThan(1);
    },
  );

  it(
    'kill -9 of a worker process mid-run: another worker recovers the stalled job from its checkpoint; CRM ' +
      'exactly as expected',
    async () => {
      fx = await startFixture('e2e-kill', SLOW);
      const expected = await fx.oracleIds('companies', COMPANY_FILTER);
      fx.si.resetStats();
      const yaml = hubspotConfig(COMPANY_SEARCH, SLOW_SOURCE);
      const r = await start(fx, yaml, {});
      const { proc } = await spawnWorker(fx, yaml);
      const { jobId } = await enqueueRun(r.queues.sync, 'all-companies', 'manual');
      const before = await waitFor(
        async () => {
          const cp = await checkpointOf(fx!, 'all-companies');
          return cp && cp.counts.fetched >= 100 ? cp : undefined;
        },
        20_000,
        'checkpoint progress',
      );
      proc.kill('SIGKILL');
      expect(before.counts.fetched).toBeLessThan(expected.length);
      inProcessWorker(fx, yaml);
      const final = await completedRun(fx, 'all-companies', jobId);
      expect(hubspotValues(fx.hubspot!, 'companies', 'prospect_sync_id')).toEqual(expected);
      expect(final.status).toBe('completed');
      // tokens re-spent after the crash, per journey: at most the write batch not yet checkpointed (HubSpot: 100
      // records, i.e. 5 pages of 20) plus the page prefetched behind it
      const charged = fx.si.stats('worker').tokensCharged;
      expect(charged - expected.length).toBeLessThanOrEqual(final.partitions * (100 + 20));
    },
    60_000,
  );

  it(
    'SIGTERM during a run: the worker checkpoints, puts the run back and exits 0 promptly; the next worker ' +
      'finishes it',
    async () => {
      fx = await startFixture('e2e-sigterm', SLOW);
      const expected = await fx.oracleIds('companies', COMPANY_FILTER);
      const yaml = hubspotConfig(COMPANY_SEARCH, SLOW_SOURCE);
      const r = await start(fx, yaml, {});
      const { proc, exited } = await spawnWorker(fx, yaml);
      const { jobId } = await enqueueRun(r.queues.sync, 'all-companies', 'manual');
      await waitFor(
        async () => ((await checkpointOf(fx!, 'all-companies'))?.counts.fetched ?? 0) >= 60 || undefined,
        20_000,
        'checkpoint progress',
      );
      const t0 = Date.now();
      proc.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(Date.now() - t0).toBeLessThan(10_000);
      expect(await r.queues.sync.getJobState(jobId)).toBe('waiting');
      const cp = await checkpointOf(fx, 'all-companies');
      expect(cp?.counts.fetched ?? 0).toBeLessThan(expected.length);
      expect(fx.hubspot!.state.count('companies')).toBe(cp?.counts.created);
      inProcessWorker(fx, yaml);
      await completedRun(fx, 'all-companies', jobId);
      expect(hubspotValues(fx.hubspot!, 'companies', 'prospect_sync_id')).toEqual(expected);
    },
    60_000,
  );
});
