/**
 * A redis-server of the test's own on a free loopback port, so a test can stop and restart it (by PID) under a
 * running process. AOF with fsync on every write: a stop loses nothing and a restart on the same directory brings
 * every queued job back, as a production Redis with persistence would.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../src/shared/free-port.js';
import { redisAnswers } from '../../src/shared/redis.js';

export interface PrivateRedis {
  port: number;
  /** redis://:<password>@127.0.0.1:<port> */
  url: string;
  readonly pid: number | undefined;
  start(): Promise<void>;
  /** SIGTERM by PID (Redis flushes the AOF and exits), resolved once the process has exited. */
  stop(): Promise<void>;
  /** Stops it if running and removes its data directory. */
  destroy(): Promise<void>;
}

const answers = (url: string): Promise<boolean> => redisAnswers(url, 500);

const running = (p: ChildProcess): boolean => p.exitCode === null && p.signalCode === null;

/** `args`: more redis-server options (e.g. `--maxmemory-policy allkeys-lru`). */
export async function privateRedis(password: string, args: readonly string[] = []): Promise<PrivateRedis> {
  const port = await freePort();
  const dir = await mkdtemp(join(tmpdir(), 'ps-redis-'));
  const url = `redis://:${password}@127.0.0.1:${port}`;
  let proc: ChildProcess | undefined;
  let exited: Promise<void> | undefined;
  const handle: PrivateRedis = {
    port,
    url,
    get pid() {
      return proc?.pid;
    },
    async start() {
      proc = spawn(
        'redis-server',
        [
          '--port',
          String(port),
          '--bind',
          '127.0.0.1',
          '--dir',
          dir,
          '--appendonly',
          'yes',
          '--appendfsync',
          'always',
          '--save',
          '',
          '--requirepass',
          password,
          ...args,
        ],
        { stdio: 'ignore' },
      );
      const p = proc;
      exited = new Promise((resolve) => p.once('exit', () => resolve()));
      for (let i = 0; i < 100; i++) {
        if (await answers(url)) return;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`redis-server on port ${port} did not answer`);
    },
    async stop() {
      if (!proc?.pid || !running(proc)) return;
      process.kill(proc.pid, 'SIGTERM');
      await exited;
    },
    async destroy() {
      if (proc?.pid && running(proc)) {
        process.kill(proc.pid, 'SIGKILL');
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
  return handle;
}
