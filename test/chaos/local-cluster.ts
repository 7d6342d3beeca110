/**
 * A 3-master Redis Cluster of the test's own: three `redis-server --cluster-enabled yes` on free loopback ports (each
 * with its cluster bus at port + 10000), joined by `redis-cli --cluster create … --cluster-replicas 0`. Stopped by
 * PID (SIGKILL) and its directory removed by `destroy()`, which tests call in afterAll even on failure.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../../src/shared/free-port.js';

const run = promisify(execFile);

export interface LocalCluster {
  ports: number[];
  /** `redis+cluster://127.0.0.1:p1,127.0.0.1:p2,127.0.0.1:p3` (src/shared/redis.ts createRedis). */
  url: string;
  /** Keys held by each node (KEYS * on a throwaway cluster only). */
  keysPerNode(): Promise<string[][]>;
  destroy(): Promise<void>;
}

/** A free port whose cluster bus port (+10000) is free too. */
async function clusterPort(taken: number[]): Promise<number> {
  for (;;) {
    const port = await freePort();
    if (port + 10_000 >= 65_536 || taken.includes(port)) continue;
    const bus = await new Promise<boolean>((resolve) => {
      const srv = createServer();
      srv.once('error', () => resolve(false));
      srv.listen(port + 10_000, '127.0.0.1', () => srv.close(() => resolve(true)));
    });
    if (bus) return port;
  }
}

const cli = async (port: number, ...args: string[]): Promise<string> =>
  (await run('redis-cli', ['-p', String(port), ...args])).stdout;

export async function startLocalCluster(): Promise<LocalCluster> {
  const dir = await mkdtemp(join(tmpdir(), 'ps-cluster-'));
  const procs: ChildProcess[] = [];
  const ports: number[] = [];
  const destroy = async (): Promise<void> => {
    await Promise.all(
      procs.map((p) =>
        p.exitCode === null && p.signalCode === null && p.pid !== undefined
          ? new Promise<void>((resolve) => {
              p.once('exit', () => resolve());
              process.kill(p.pid!, 'SIGKILL');
            })
          : undefined,
      ),
    );
    await rm(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < 3; i++) {
      const port = await clusterPort(ports);
      ports.push(port);
      procs.push(
        spawn(
          'redis-server',
          [
            '--port',
            String(port),
            '--bind',
            '127.0.0.1',
            '--dir',
            dir,
            '--cluster-enabled',
            'yes',
            '--cluster-config-file',
            `nodes-${port}.conf`,
            '--dbfilename',
            `dump-${port}.rdb`,
            '--save',
            '',
            '--appendonly',
            'no',
          ],
          { stdio: 'ignore' },
        ),
      );
    }
    for (const port of ports) {
      for (let i = 0; ; i++) {
        if ((await cli(port, 'ping').catch(() => '')).includes('PONG')) break;
        if (i > 100) throw new Error(`redis-server on ${port} did not answer`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    await run('redis-cli', [
      '--cluster',
      'create',
      ...ports.map((p) => `127.0.0.1:${p}`),
      '--cluster-replicas',
      '0',
      '--cluster-yes',
    ]);
    for (const port of ports) {
      for (let i = 0; ; i++) {
        if ((await cli(port, 'cluster', 'info')).includes('cluster_state:ok')) break;
        if (i > 150) throw new Error(`cluster node ${port} not ok`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  } catch (err) {
    await destroy();
    throw err;
  }
  return {
    ports,
    url: `redis+cluster://${ports.map((p) => `127.0.0.1:${p}`).join(',')}`,
    async keysPerNode() {
      return Promise.all(ports.map(async (p) => (await cli(p, '--raw', 'keys', '*')).split('\n').filter(Boolean)));
    },
    destroy,
  };
}
