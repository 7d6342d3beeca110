/**
 * The container image's steps, without a Docker engine: the Dockerfile's runtime stage replayed in a clean temp
 * directory. Slow (`npm ci --omit=dev` alone takes ~1 min on a loaded machine), so it runs only with IMAGE_CHECK=1:
 *   IMAGE_CHECK=1 npx vitest run test/queue/image-steps.test.ts
 * (the fast structural checks of the same files are container.test.ts, which always runs).
 *
 * Build stage: sources copied to a clean directory and compiled with `npm run build` using the repo's installed dev
 * dependencies (instead of a second full `npm ci`). Runtime stage: the package files, `npm ci --omit=dev --offline`
 * (from the npm cache, no network; never `npm cache clean`, the cache is shared), then the stage's COPYs, its ENV,
 * and its ENTRYPOINT + CMD run from the stage's WORKDIR against the emulators and Redis; the HEALTHCHECK command
 * itself probes /healthz.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startAllEmulators, type RunningEmulators } from '../../src/emulators/start-all.js';
import { enqueueRun, openQueues } from '../../src/queue/index.js';
import { listRuns } from '../../src/runs/run-history.js';
import { createRedis, deleteKeysUnder } from '../../src/shared/redis.js';
import { freePort } from '../../src/shared/free-port.js';
import { dockerfileStages, healthcheckArgv, stageEnv } from './container-files.js';
import { waitFor } from './queue-env.js';

const REPO = resolve('.');
const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

const jsonArray = (args: string): string[] => JSON.parse(args) as string[];

describe.runIf(process.env.IMAGE_CHECK === '1')('the image, replayed in a clean directory', () => {
  it(
    'installs production dependencies only, runs the compiled `start` on 0.0.0.0 with auth, healthy, and ' + 'syncs',
    async () => {
      const t0 = Date.now();
      const [build, runtime] = dockerfileStages();
      if (!build || !runtime) throw new Error('Dockerfile: expected two stages');
      const root = mkdtempSync(join(tmpdir(), 'ps-image-'));
      cleanups.push(() => rmSync(root, { recursive: true, force: true }));

      // build stage: its COPYs, then `npm run build` with the repo's dev dependencies
      const buildDir = join(root, 'build');
      mkdirSync(buildDir);
      for (const c of build.filter((i) => i.op === 'COPY')) {
        const parts = c.args.split(/\s+/);
        const dest = parts.at(-1) ?? '.';
        for (const src of parts.slice(0, -1))
          cpSync(join(REPO, src), join(buildDir, dest === './' ? src : dest), { recursive: true });
      }
      symlinkSync(join(REPO, 'node_modules'), join(buildDir, 'node_modules'));
      expect(build.some((i) => i.op === 'RUN' && i.args === 'npm run build')).toBe(true);
      execFileSync('npm', ['run', 'build'], {
        cwd: buildDir,
        stdio: 'pipe',
        env: { ...process.env, PATH: `${join(REPO, 'node_modules', '.bin')}:${process.env.PATH ?? ''}` },
      });
      const builtAt = Date.now();

      // runtime stage, instruction by instruction
      const app = join(root, 'app');
      mkdirSync(app);
      const env: Record<string, string> = {};
      for (const i of runtime) {
        if (i.op === 'COPY') {
          const parts = i.args.split(/\s+/);
          const from = parts[0]?.startsWith('--from=') ? buildDir : REPO;
          const srcs = parts.filter((p) => !p.startsWith('--from=')).slice(0, -1);
          const dest = parts.at(-1) ?? '.';
          for (const src of srcs) {
            const target = dest === './' ? join(app, src.split('/').at(-1) ?? src) : join(app, dest);
            cpSync(join(from, src.replace(/^\/app\//, '')), target, { recursive: true });
          }
        } else if (i.op === 'RUN') {
          // `npm ci --omit=dev ...` offline from the cache; the cache clean is skipped (shared cache)
          const ci = i.args.split('&&')[0]?.trim().split(/\s+/) ?? [];
          expect(ci.slice(0, 3)).toEqual(['npm', 'ci', '--omit=dev']);
          const r = spawnSync(ci[0]!, [...ci.slice(1), '--offline'], {
            cwd: app,
            encoding: 'utf8',
            env: { ...process.env, NODE_ENV: 'production' },
          });
          expect(r.status, r.stderr).toBe(0);
        }
      }
      Object.assign(env, stageEnv(runtime));
      const installedAt = Date.now();

      // production dependencies only (typescript itself is there: a peer dependency of valibot, under @bull-board/api)
      for (const devOnly of ['tsx', 'vitest', 'playwright-core', 'eslint', 'dpdm', 'ajv'])
        expect(existsSync(join(app, 'node_modules', devOnly)), devOnly).toBe(false);
      expect(existsSync(join(app, 'src'))).toBe(false);
      expect(existsSync(join(app, 'dist', 'src', 'cli', 'main.js'))).toBe(true);

      const emulators: RunningEmulators = await startAllEmulators({
        ports: { salesIntel: 0, hubspot: 0, salesforce: 0 },
      });
      cleanups.push(() => emulators.close());
      const prefix = `ps-image-${randomUUID().slice(0, 8)}`;
      const redis = createRedis(process.env.REDIS_URL);
      cleanups.push(async () => {
        await deleteKeysUnder(redis, prefix);
        redis.disconnect();
      });

      const entry = jsonArray(runtime.find((i) => i.op === 'ENTRYPOINT')?.args ?? '[]');
      const cmd = jsonArray(runtime.find((i) => i.op === 'CMD')?.args ?? '[]');
      expect(cmd).toEqual(['start']);
      const password = `pw-${randomUUID()}`;
      // the port through the shipped config's PROSPECT_SYNC_PORT (not --port), so the HEALTHCHECK finds it as in the
      // image
      const containerEnv = {
        PATH: process.env.PATH ?? '',
        HOME: root,
        ...env,
        ...emulators.env,
        DASHBOARD_PASSWORD: password,
        REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
        QUEUE_PREFIX: prefix,
        LOG_LEVEL: 'warn',
        PROSPECT_SYNC_PORT: String(await freePort()),
      };
      const child = spawn(entry[0] === 'node' ? process.execPath : entry[0]!, [...entry.slice(1), ...cmd], {
        cwd: app,
        env: containerEnv,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let err = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
      cleanups.push(() => child.exitCode === null && child.kill('SIGKILL'));

      const port = await waitFor(() => {
        if (child.exitCode !== null) throw new Error(`start exited ${child.exitCode}: ${err}`);
        return /dashboard: http:\/\/0\.0\.0\.0:(\d+)/.exec(out)?.[1];
      }, 30_000);

      expect(port).toBe(containerEnv.PROSPECT_SYNC_PORT);
      // the image's own HEALTHCHECK command, from the WORKDIR with the container's environment
      const hc = healthcheckArgv(runtime) ?? [];
      const probe = spawnSync(hc[0] === 'node' ? process.execPath : hc[0]!, hc.slice(1), {
        cwd: app,
        env: containerEnv,
        encoding: 'utf8',
      });
      expect(probe.status, probe.stderr).toBe(0);

      // reachable off loopback, and the dashboard needs the credentials there
      const external = Object.values(networkInterfaces())
        .flat()
        .find((n) => n && n.family === 'IPv4' && !n.internal)?.address;
      const host = external ?? '127.0.0.1';
      expect((await fetch(`http://${host}:${port}/healthz`)).status).toBe(200);
      expect((await fetch(`http://${host}:${port}/`)).status).toBe(401);
      const authed = await fetch(`http://${host}:${port}/`, {
        headers: { authorization: `Basic ${Buffer.from(`admin:${password}`).toString('base64')}` },
      });
      expect(authed.status).toBe(200);

      // the compiled sync job runs with production dependencies only
      const queues = openQueues({ connection: redis, prefix });
      cleanups.push(() => queues.close());
      const { jobId } = await enqueueRun(queues.sync, 'dach-software', 'manual');
      // The job's end, not its first attempt's: a failed attempt is retried from its checkpoint, as in production.
      const state = await waitFor(async () => {
        const s = await queues.sync.getJobState(jobId);
        return s === 'completed' || s === 'failed' ? s : undefined;
      }, 120_000);
      const attempts = (await listRuns(redis, 'dach-software', { prefix })).filter((r) => r.runId === jobId);
      for (const a of attempts.filter((x) => x.status === 'failed'))
        process.stdout.write(`image check: a failed attempt was retried: ${JSON.stringify(a.error)}\n`);
      const run = attempts[0]!;
      expect(state, JSON.stringify(attempts.map((a) => a.error))).toBe('completed');
      expect(run.status, JSON.stringify(run.error)).toBe('completed');
      expect(emulators.hubspot.state.count('companies')).toBe(run.created);

      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(err).toBe('');
      expect(out).not.toContain(password);
      process.stdout.write(
        `image steps: build ${Math.round((builtAt - t0) / 1000)} s, npm ci ` +
          `--omit=dev ${Math.round((installedAt - builtAt) / 1000)} s, ` +
          `start..sync ${Math.round((Date.now() - installedAt) / 1000)} s\n`,
      );
    },
    400_000,
  );
});
