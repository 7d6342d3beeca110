/**
 * docker-compose.yml's emulators profile without Docker: the `demo` service replayed as its container runs it (the
 * image's ENTRYPOINT + `demo`, the image's ENV under the service's, a terminal as `tty: true` gives it, through
 * util-linux `script`). Its dashboard must be reachable from outside the container (not only its loopback), and
 * therefore behind a password, made up at start and printed.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/shared/free-port.js';
import { readCompose, resolveService } from './compose-file.js';
import { dockerfileStages, stageEnv } from './container-files.js';
import { waitFor } from './queue-env.js';

const runtime = dockerfileStages()[1] ?? [];
const image = {
  entrypoint: JSON.parse(runtime.find((i) => i.op === 'ENTRYPOINT')?.args ?? '[]') as string[],
  cmd: JSON.parse(runtime.find((i) => i.op === 'CMD')?.args ?? '[]') as string[],
  env: stageEnv(runtime),
};
const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

describe('the emulators profile, replayed without Docker', () => {
  it("serves the demo's dashboard off the container's loopback, with a printed made-up password", async () => {
    const compose = readCompose('docker-compose.yml', {});
    const svc = resolveService(compose, 'demo', image, '.', {});
    expect(compose.services.demo?.tty).toBe(true);
    // the published port leads to the port the demo listens on
    const published = /^127\.0\.0\.1:\d+:(\d+)$/.exec(compose.services.demo?.ports?.[0] ?? '');
    expect(published?.[1], 'demo ports: published on the host loopback').toBeDefined();
    expect(published?.[1]).toBe(svc.env.PROSPECT_SYNC_PORT);
    const port = String(await freePort()); // the compose port may be taken on this machine
    const env = {
      ...svc.env,
      PROSPECT_SYNC_PORT: port,
      REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
      QUEUE_PREFIX: `ps-demo-${randomUUID().slice(0, 8)}`,
    };
    expect(svc.argv).toEqual(['node', 'bin/prospect-sync.js', 'demo']);
    const home = mkdtempSync(join(tmpdir(), 'ps-demo-'));
    cleanups.push(() => rmSync(home, { recursive: true, force: true }));
    // `script` gives the demo a terminal (compose `tty: true`): it keeps running after its first run
    const child = spawn('script', ['-qefc', [process.execPath, ...svc.argv.slice(1)].join(' '), '/dev/null'], {
      env: { PATH: process.env.PATH ?? '', HOME: home, TERM: 'dumb', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<void>((r) => child.on('exit', () => r()));
    cleanups.push(() => child.exitCode === null && child.pid && process.kill(-child.pid, 'SIGKILL'));

    const [, url, user, password] = await waitFor(() => {
      if (child.exitCode !== null) throw new Error(`demo exited ${child.exitCode}: ${out}`);
      return /dashboard: (\S+) \(user (\S+), password (\S+)\)/.exec(out) ?? undefined;
    }, 60_000);
    expect(url).toBe(`http://0.0.0.0:${port}`);
    const external = Object.values(networkInterfaces())
      .flat()
      .find((n) => n && n.family === 'IPv4' && !n.internal)?.address;
    const base = `http://${external ?? '127.0.0.1'}:${port}`;
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect((await fetch(`${base}/runs`)).status).toBe(401);
    const authed = await fetch(`${base}/runs`, {
      headers: { authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` },
    });
    expect(authed.status).toBe(200);
    expect(await authed.text()).toContain('dach-software');

    process.kill(-child.pid!, 'SIGTERM');
    await exited;
  }, 90_000);
});
