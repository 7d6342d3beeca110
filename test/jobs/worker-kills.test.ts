/**
 * A queued run survives its worker process dying again and again: each SIGKILL leaves the job stalled, a new worker
 * process recovers it from its checkpoint, and the CRM ends exactly as expected (every record once). BullMQ's
 * default `maxStalledCount` (1) would fail the job at the second stall.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { enqueueRun, openQueues, type AppQueues } from '../../src/queue/index.js';
import type { RunCheckpoint } from '../../src/runs/checkpoint-store.js';
import { listRuns } from '../../src/runs/run-history.js';
import { createRedis } from '../../src/shared/redis.js';
import { COMPANY_FILTER, COMPANY_SEARCH, hubspotConfig, hubspotValues, startFixture, type Fixture } from './sync-fixture.js';

const CHILD = fileURLToPath(new URL('../e2e/sync-worker-child.ts', import.meta.url));
const KILLS = 3;

let fx: Fixture | undefined;
let queues: AppQueues | undefined;
let child: ChildProcess | undefined;
let dir: string | undefined;
const connection = createRedis(process.env.REDIS_URL);

afterEach(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((r) => child?.once('exit', r));
    child.kill('SIGKILL');
    await exited;
  }
  await queues?.close();
  await fx?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
  connection.disconnect();
  fx = queues = child = dir = undefined;
});

async function waitFor<T>(probe: () => Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A worker OS process (test/e2e/sync-worker-child.ts: lockDuration 2 s, stalledInterval 1 s), once it takes jobs. */
async function spawnWorker(f: Fixture, configFile: string): Promise<ChildProcess> {
  const proc = spawn(process.execPath, ['--import', 'tsx', CHILD, configFile, f.prefix], {
    env: { ...process.env, ...f.env, LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  child = proc;
  await new Promise<void>((resolve, reject) => {
    proc.stdout?.on('data', (d: Buffer) => d.toString().includes('ready') && resolve());
    proc.once('exit', (code) => reject(new Error(`worker child exited early (${code})`)));
  });
  return proc;
}

async function kill(proc: ChildProcess): Promise<void> {
  const exited = new Promise((r) => proc.once('exit', r));
  proc.kill('SIGKILL');
  await exited;
}

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

    let proc = await spawnWorker(f, configFile);
    const { jobId } = await enqueueRun(queues.sync, 'all-companies', 'manual');
    let last = 0;
    for (let k = 0; k < KILLS; k++) {
      // this worker has made progress of its own (a checkpoint past the previous one), then it dies
      last = await waitFor(async () => {
        const n = await checkpointFetched();
        return n >= last + 60 ? n : undefined;
      }, 30_000, `progress before kill ${k + 1}`);
      expect(last).toBeLessThan(expected.length);
      await kill(proc);
      proc = await spawnWorker(f, configFile);
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
    // then found unchanged, so each record is counted once either way
    expect((final?.created ?? 0) + (final?.unchanged ?? 0)).toBe(expected.length);
  }, 120_000);
});
