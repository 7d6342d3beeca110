/**
 * A throwaway redis-server (no persistence) on a free loopback port, for the commands that must work on a machine
 * where Redis is installed but not running: `demo` and the test suite's global setup.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from './free-port.js';
import { redisAnswers } from './redis.js';

/** What to install when no Redis answers and no redis-server can be started. */
export const INSTALL_REDIS_HINT =
  '  Debian/Ubuntu: sudo apt-get install redis-server\n' +
  '  macOS:         brew install redis\n' +
  '  or Docker:     docker run -d -p 6379:6379 redis:7\n';

export interface PrivateRedisServer {
  url: string;
  proc: ChildProcess;
  /** Stops it (SIGTERM by PID) and resolves once it has exited. */
  stop(): Promise<void>;
}

/**
 * Starts one, or answers null when redis-server is not installed (not on `env.PATH`) or does not answer within
 * `waitMs`.
 */
export async function startPrivateRedis(
  options: { env?: NodeJS.ProcessEnv; waitMs?: number } = {},
): Promise<PrivateRedisServer | null> {
  const env = options.env ?? process.env;
  if (spawnSync('redis-server', ['--version'], { stdio: 'ignore', env }).status !== 0) return null;
  const port = await freePort();
  const proc = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore', env },
  );
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill();
    await exited;
  };
  const url = `redis://127.0.0.1:${port}`;
  const deadline = Date.now() + (options.waitMs ?? 5_000);
  while (Date.now() < deadline) {
    if (await redisAnswers(url)) return { url, proc, stop };
    await sleep(100);
  }
  await stop();
  return null;
}
