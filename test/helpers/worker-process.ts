/**
 * Worker OS processes for the crash tests: test/e2e/sync-worker-child.ts (the real sync processor behind the worker
 * bootstrap, BullMQ lockDuration 2 s and stalledInterval 1 s) spawned per call, killed by PID. Every process a pool
 * spawned is SIGKILLed by `killAll()`, which the tests call in afterAll/afterEach even when they fail.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { nodeEntry } from './node-entry.js';

const CHILD = fileURLToPath(new URL('../e2e/sync-worker-child.ts', import.meta.url));

const running = (p: ChildProcess): boolean => p.exitCode === null && p.signalCode === null;

export interface WorkerPool {
  /** Spawns one worker process and resolves once it takes jobs ("ready" on its stdout). */
  spawn(): Promise<ChildProcess>;
  /** SIGKILL by PID, resolved once the process has exited. */
  kill(proc: ChildProcess): Promise<void>;
  /** SIGKILLs every process this pool spawned that still runs. */
  killAll(): Promise<void>;
}

/** `env` reaches the child too: `WORKER_LOCKS=production`, `BUSY_ON_SIGUSR2` (see sync-worker-child.ts). */
export function workerPool(configFile: string, prefix: string, env: Record<string, string>): WorkerPool {
  const spawned: ChildProcess[] = [];
  const kill = async (proc: ChildProcess): Promise<void> => {
    if (!running(proc) || proc.pid === undefined) return;
    const exited = new Promise((r) => proc.once('exit', r));
    process.kill(proc.pid, 'SIGKILL');
    await exited;
  };
  return {
    async spawn() {
      const proc = spawn(process.execPath, [...nodeEntry(CHILD), configFile, prefix], {
        env: { ...process.env, LOG_LEVEL: 'silent', ...env },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      spawned.push(proc);
      await new Promise<void>((resolve, reject) => {
        proc.stdout?.on('data', (d: Buffer) => d.toString().includes('ready') && resolve());
        proc.once('exit', (code) => reject(new Error(`worker child exited early (${code})`)));
      });
      return proc;
    },
    kill,
    async killAll() {
      await Promise.all(spawned.map(kill));
    },
  };
}

/** Polls `probe` every 50 ms until it returns a value (not undefined); throws naming `what` after `timeoutMs`. */
export async function waitFor<T>(probe: () => Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Waits until job `jobId` of `queue` has completed or failed, and says which. */
export function jobEnded(
  queue: { getJobState(jobId: string): Promise<string> },
  jobId: string,
  timeoutMs: number,
): Promise<string> {
  return waitFor(
    async () => {
      const state = await queue.getJobState(jobId);
      return state === 'completed' || state === 'failed' ? state : undefined;
    },
    timeoutMs,
    'the job ends',
  );
}
