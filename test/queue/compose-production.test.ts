/**
 * docker-compose.yml's production profile, brought up without a Docker engine: the file checked against the
 * Compose schema's rules, every documented variable passed to every app service (secrets only as *_FILE through
 * compose `secrets:`), then each service replayed as its container would run: the image's ENTRYPOINT + the service's
 * command from the image's WORKDIR, the image's ENV under the service's environment (interpolated from a project
 * `.env`), the config directory mounted at /app/config and the secrets as files standing in for /run/secrets.
 * The dashboard answers the image's HEALTHCHECK on the configured port; a changed mounted config is reloaded on SIGHUP.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import {
  appendFileSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openQueues } from '../../src/queue/index.js';
import { freePort } from '../../src/shared/free-port.js';
import { createRedis, deleteKeysUnder } from '../../src/shared/redis.js';
import { composeProblems, readCompose, resolveService, type ComposeFile } from './compose-file.js';
import { dockerfileStages, healthcheckArgv, stageEnv } from './container-files.js';
import { waitFor } from './queue-env.js';

const REPO = resolve('.');
const APPS = ['scheduler', 'worker', 'dashboard'];
const runtime = dockerfileStages()[1] ?? [];
const image = {
  entrypoint: JSON.parse(runtime.find((i) => i.op === 'ENTRYPOINT')?.args ?? '[]') as string[],
  cmd: JSON.parse(runtime.find((i) => i.op === 'CMD')?.args ?? '[]') as string[],
  env: stageEnv(runtime),
  workdir: runtime.find((i) => i.op === 'WORKDIR')?.args ?? '/',
};

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

const varsIn = (text: string): string[] => [...text.matchAll(/\$\{([A-Z][A-Z0-9_]*)(?::-[^}]*)?\}/g)].map((m) => m[1]!);
const shippedConfigs = (): string[] => [
  'config/prospect-sync.yaml',
  ...readdirSync('config/examples').map((f) => join('config/examples', f)),
];

/** Every variable the docs tell operators to set: the operations env table and the ${VAR}s of the shipped configs. */
function documentedVariables(): { all: Set<string>; secrets: Set<string> } {
  const ops = readFileSync('docs/operations.md', 'utf8');
  const table = ops.slice(ops.indexOf('| env | default | meaning |'), ops.indexOf('## Commands'));
  const all = new Set<string>();
  for (const row of table.split('\n').slice(2))
    for (const m of (row.split('|')[1] ?? '').matchAll(/`([A-Z][A-Z0-9_]*)`/g)) all.add(m[1]!);
  const configText = [
    ...shippedConfigs().map((f) => readFileSync(f, 'utf8')),
    ...[...readFileSync('docs/configuration.md', 'utf8').matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!),
  ].join('\n');
  const noComments = configText.replace(/#.*$/gm, '');
  for (const v of varsIn(noComments)) all.add(v);
  // the config's secret keys (docs/configuration.md, "Secrets only from the environment")
  const secrets = new Set(
    [...noComments.matchAll(/(?:clientSecret|accessToken|password|url):\s*"?\$\{([A-Z][A-Z0-9_]*)/g)].map((m) => m[1]!),
  );
  return { all, secrets };
}

describe('docker-compose.yml', () => {
  const compose = readCompose('docker-compose.yml', {});

  it('passes the Compose schema checks (structure, references, secrets)', () => {
    expect(composeProblems(compose)).toEqual([]);
    // the checks do catch what Compose refuses
    const broken = structuredClone(compose) as ComposeFile;
    broken.services.worker!.secrets = ['nope'];
    (broken.services.dashboard as Record<string, unknown>).enviroment = {};
    expect(composeProblems(broken)).toEqual([
      'services.worker.secrets: undefined secret nope',
      'services.dashboard.enviroment is not allowed',
    ]);
  });

  it('passes every documented variable to every production service; secrets only as files under /run/secrets', () => {
    const { all, secrets } = documentedVariables();
    for (const v of [
      'SF_CLIENT_ID',
      'SF_CLIENT_SECRET',
      'ALERT_WEBHOOK_URL',
      'METRICS_AUTH',
      'PROSPECT_SYNC_CONFIG',
      'DASHBOARD_PASSWORD',
    ])
      expect(all).toContain(v);
    expect([...secrets].sort()).toEqual([
      'ALERT_WEBHOOK_URL',
      'DASHBOARD_PASSWORD',
      'HUBSPOT_TOKEN',
      'SF_CLIENT_SECRET',
      'SI_CLIENT_SECRET',
    ]);
    for (const name of APPS) {
      const svc = compose.services[name]!;
      expect(svc.profiles, name).toEqual(['production']);
      const env = svc.environment ?? {};
      for (const v of all) {
        if (secrets.has(v)) {
          expect(env, `${name}: secret ${v} in the environment`).not.toHaveProperty(v);
          const file = String(env[`${v}_FILE`] ?? '');
          expect(file, `${name}: ${v}_FILE`).toMatch(/^\/run\/secrets\/[a-z_]+$/);
          expect(svc.secrets, `${name}: secret for ${v}`).toContain(file.slice('/run/secrets/'.length));
        } else {
          expect(v in env || v in image.env, `${name}: ${v} not passed`).toBe(true);
        }
      }
      // the config is a mounted directory (SIGHUP re-reads it), not the one baked into the image
      expect(
        svc.volumes?.some(
          (v) => /^\$\{CONFIG_DIR:-\.\/config\}:\/app\/config(:ro)?$/.test(v) || /:\/app\/config(:ro)?$/.test(v),
        ),
        name,
      ).toBe(true);
    }
  });

  it('the demo publishes its dashboard on the host (loopback), the production dashboard on its configured port', () => {
    const demo = readCompose('docker-compose.yml', {}).services.demo!;
    expect(demo.ports?.[0]).toBe(`127.0.0.1:3001:${String(demo.environment?.PROSPECT_SYNC_PORT)}`);
    const withPort = readCompose('docker-compose.yml', { PROSPECT_SYNC_PORT: '8080', DASHBOARD_PORT: '443' });
    expect(withPort.services.dashboard?.ports).toEqual(['443:8080']);
  });
});

describe('the production profile, replayed without Docker', () => {
  it(
    'starts scheduler, worker and dashboard with mounted config and secret files; healthy on the configured port; ' +
      'SIGHUP reloads the mounted config',
    async () => {
      const root = mkdtempSync(join(tmpdir(), 'ps-compose-'));
      cleanups.push(() => rmSync(root, { recursive: true, force: true }));
      // the operator's project directory: the compose file, its config directory, a secrets directory and .env values
      const project = join(root, 'project');
      mkdirSync(join(project, 'secrets'), { recursive: true });
      cpSync('docker-compose.yml', join(project, 'docker-compose.yml'));
      cpSync('config', join(project, 'config'), { recursive: true });
      const password = `pw-${randomUUID()}`;
      const secretValues: Record<string, string> = {
        si_client_secret: 'si-secret',
        hubspot_token: 'hs-token',
        dashboard_password: `${password}\n`,
        sf_client_secret: '',
        alert_webhook_url: '',
      };
      for (const [name, value] of Object.entries(secretValues)) writeFileSync(join(project, 'secrets', name), value);
      const prefix = `ps-compose-${randomUUID().slice(0, 8)}`;
      const port = await freePort();
      const dotEnv = {
        QUEUE_PREFIX: prefix,
        PROSPECT_SYNC_PORT: String(port),
        SI_BASE_URL: 'http://127.0.0.1:9',
        SI_TOKEN_URL: 'http://127.0.0.1:9/oauth/token',
        SI_CLIENT_ID: 'client',
        HUBSPOT_BASE_URL: 'http://127.0.0.1:9',
      };
      const compose = readCompose(join(project, 'docker-compose.yml'), dotEnv);
      expect(composeProblems(compose)).toEqual([]);

      const redis = createRedis(process.env.REDIS_URL);
      cleanups.push(async () => {
        await deleteKeysUnder(redis, prefix);
        redis.disconnect();
      });

      const started: Record<
        string,
        { child: ChildProcess; out: () => string; env: Record<string, string>; cwd: string }
      > = {};
      for (const name of APPS) {
        const svc = resolveService(compose, name, image, project, dotEnv);
        // the container's filesystem: WORKDIR with the image's bin/, the mounts in place of their container paths
        const fsRoot = join(root, name);
        const cwd = join(fsRoot, image.workdir);
        mkdirSync(cwd, { recursive: true });
        symlinkSync(join(REPO, 'bin'), join(cwd, 'bin'));
        const hostPath = (p: string): string => {
          const target = Object.keys(svc.mounts).find((m) => p === m || p.startsWith(`${m}/`));
          return target ? svc.mounts[target]! + p.slice(target.length) : p;
        };
        for (const [target, src] of Object.entries(svc.mounts)) {
          if (target.startsWith(`${image.workdir}/`)) symlinkSync(src, join(fsRoot, target));
        }
        expect(svc.mounts[`${image.workdir}/config`], name).toBe(join(project, 'config'));
        const env = Object.fromEntries(
          Object.entries(svc.env).map(([k, v]) => [k, k.endsWith('_FILE') ? hostPath(v) : v]),
        );
        // the compose network's `redis` host is this test's Redis
        expect(env.REDIS_URL).toBe('redis://redis:6379');
        env.REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
        expect(svc.argv.slice(0, 2)).toEqual(['node', 'bin/prospect-sync.js']);
        const child = spawn(process.execPath, svc.argv.slice(1), {
          cwd,
          env: { PATH: process.env.PATH ?? '', HOME: root, ...env },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let out = '';
        child.stdout.on('data', (d: Buffer) => (out += d.toString()));
        child.stderr.on('data', (d: Buffer) => (out += d.toString()));
        cleanups.push(() => child.exitCode === null && child.kill('SIGKILL'));
        started[name] = { child, out: () => out, env, cwd };
      }

      for (const [name, s] of Object.entries(started)) {
        await waitFor(() => {
          if (s.child.exitCode !== null) throw new Error(`${name} exited ${s.child.exitCode}: ${s.out()}`);
          return s.out().includes('"msg":"started"');
        }, 40_000);
      }
      const dash = started.dashboard!;
      expect(dash.out()).toContain(`dashboard: http://0.0.0.0:${port}`);

      // the image's HEALTHCHECK, as Docker runs it: in the container's WORKDIR with its environment
      const hc = healthcheckArgv(runtime) ?? [];
      const probe = spawnSync(process.execPath, hc.slice(1), {
        cwd: dash.cwd,
        env: { PATH: process.env.PATH ?? '', ...dash.env },
        encoding: 'utf8',
      });
      expect(probe.status, probe.stderr).toBe(0);
      // the password came from its secret file
      const auth = { authorization: `Basic ${Buffer.from(`admin:${password}`).toString('base64')}` };
      expect((await fetch(`http://127.0.0.1:${port}/runs`)).status).toBe(401);
      const before = await fetch(`http://127.0.0.1:${port}/runs`, { headers: auth });
      expect(before.status).toBe(200);
      expect(await before.text()).not.toContain('reload-check');

      // edit the mounted config on the host, then `docker compose kill -s HUP`
      appendFileSync(
        join(project, 'config', 'prospect-sync.yaml'),
        [
          '  - name: reload-check',
          '    segment: icp-dach',
          '    entity: companies',
          '    filter: {company: {industry: {include: [software]}}}',
          '    schedule: {cron: "0 5 1 1 *"}',
          '    destination: crm',
          '    object: companies',
          '    matchOn: {field: prospect_sync_id, from: id}',
          '    fields: {name: name}',
          '',
        ].join('\n'),
      );
      for (const s of Object.values(started)) s.child.kill('SIGHUP');
      for (const [name, s] of Object.entries(started)) {
        await waitFor(
          () => /"searches":\[[^\]]*"reload-check"[^\]]*\][^\n]*"msg":"config reloaded"/.test(s.out()),
          20_000,
        ).catch(() => {
          throw new Error(`${name} did not reload: ${s.out()}`);
        });
      }
      const queues = openQueues({ connection: redis, prefix });
      cleanups.push(() => queues.close());
      await waitFor(
        async () =>
          (await queues.tick.getJobSchedulers(0, -1)).some((j) => j.key === 'reload-check' || j.id === 'reload-check'),
        15_000,
      );
      expect(await (await fetch(`http://127.0.0.1:${port}/runs`, { headers: auth })).text()).toContain('reload-check');

      for (const [name, s] of Object.entries(started)) {
        const exited = new Promise<number | null>((r) =>
          s.child.exitCode !== null ? r(s.child.exitCode) : s.child.on('exit', (code) => r(code)),
        );
        s.child.kill('SIGTERM');
        expect(await exited, name).toBe(0);
        for (const secret of [password, 'si-secret', 'hs-token']) expect(s.out(), name).not.toContain(secret);
      }
      expect(dirname(join(project, 'config'))).toBe(project);
    },
    90_000,
  );
});
