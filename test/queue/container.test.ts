/**
 * The container files, structurally (fast; the full clean-directory run of the image's steps is
 * image-steps.test.ts behind IMAGE_CHECK=1): Dockerfile, .dockerignore, docker-compose.yml and the dependency split
 * they rely on (everything the compiled code imports is a production dependency; test tools are dev ones).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { dockerfileStages, healthcheckArgv, stageEnv } from './container-files.js';

const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? tsFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** Bare package names imported (statically or dynamically) by the code the image compiles. */
function runtimeImports(): Set<string> {
  const names = new Set<string>();
  for (const file of [...tsFiles('src'), ...tsFiles('jobs')]) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(
      /(?:^|\n)\s*(?:import|export)[^'"]*?from\s+'([^'.][^']*)'|import\(\s*'([^'.][^']*)'\s*\)/g,
    )) {
      const spec = m[1] ?? m[2] ?? '';
      if (spec.startsWith('node:') || builtinModules.includes(spec)) continue;
      if (m[0].trimStart().startsWith('import type') || m[0].trimStart().startsWith('export type')) continue;
      const parts = spec.split('/');
      names.add(spec.startsWith('@') ? `${parts[0]}/${parts[1]}` : (parts[0] ?? spec));
    }
  }
  return names;
}

describe('Dockerfile', () => {
  const stages = dockerfileStages();
  const [build, runtime] = stages;

  it('builds in one stage and runs compiled output with production dependencies only in the other', () => {
    expect(stages.length).toBe(2);
    expect(build?.some((i) => i.op === 'RUN' && i.args.includes('npm run build'))).toBe(true);
    const runs = runtime?.filter((i) => i.op === 'RUN').map((i) => i.args) ?? [];
    expect(runs.some((r) => r.includes('npm ci') && r.includes('--omit=dev'))).toBe(true);
    const copies = runtime?.filter((i) => i.op === 'COPY').map((i) => i.args) ?? [];
    expect(copies).toContain('--from=build /app/dist ./dist');
    // no TypeScript source in the image: bin/ can only run dist/, never tsx or a stale build
    expect(copies.some((c) => /(^|\s)(src|jobs)(\s|$)/.test(c))).toBe(false);
    expect(runtime?.find((i) => i.op === 'USER')?.args).toBe('node');
    expect(runtime?.find((i) => i.op === 'ENTRYPOINT')?.args).toBe('["node", "bin/prospect-sync.js"]');
  });

  it('listens on 0.0.0.0 in the container and checks its health with Node (slim has no curl) on /healthz', () => {
    expect(stageEnv(runtime ?? [])).toMatchObject({ NODE_ENV: 'production', PROSPECT_SYNC_HOST: '0.0.0.0' });
    // A quoted value with spaces is one value, its quotes gone (as Docker reads it): Node refuses a stray quote.
    expect(stageEnv(runtime ?? []).NODE_OPTIONS).toMatch(/^--max-semi-space-size=\d+ --max-old-space-size=\d+$/);
    // the port comes from the config the process loads, never a fixed one (compose-production.test.ts runs it)
    expect(healthcheckArgv(runtime ?? [])).toEqual(['node', 'bin/healthcheck.js']);
    expect(readFileSync('bin/healthcheck.js', 'utf8')).toContain('/healthz');
    expect(
      stages
        .flat()
        .filter((i) => i.op === 'RUN' || i.op === 'HEALTHCHECK')
        .map((i) => i.args)
        .join('\n'),
    ).not.toMatch(/\bcurl\b|\bwget\b|apt-get/);
  });

  it('.dockerignore keeps local builds, dependencies and secrets out of the context', () => {
    const ignored = readFileSync('.dockerignore', 'utf8')
      .split('\n')
      .map((l) => l.trim());
    for (const entry of ['node_modules', 'dist', '.git', '.env']) expect(ignored).toContain(entry);
  });
});

describe('dependencies', () => {
  it('everything the compiled code imports is a production dependency; test tools are dev dependencies', () => {
    const imports = runtimeImports();
    expect(imports.size).toBeGreaterThan(5);
    for (const name of imports) expect(pkg.dependencies, `${name} is imported by src/ or jobs/`).toHaveProperty(name);
    for (const tool of ['playwright-core', 'vitest', 'tsx', 'typescript', 'eslint', 'ajv', 'node']) {
      expect(pkg.dependencies).not.toHaveProperty(tool);
      expect(pkg.devDependencies).toHaveProperty(tool);
    }
  });
});

interface Service {
  image?: string;
  build?: string;
  command?: string[];
  profiles?: string[];
  environment?: Record<string, string | null>;
  healthcheck?: { disable?: boolean; test?: string[] };
  deploy?: { replicas?: number | string };
  depends_on?: Record<string, { condition: string }>;
  ports?: string[];
  volumes?: string[];
  tty?: boolean;
  stop_grace_period?: string;
}

describe('docker-compose.yml', () => {
  const compose = parse(readFileSync('docker-compose.yml', 'utf8'), { merge: true }) as {
    services: Record<string, Service>;
    volumes: Record<string, unknown>;
  };
  const s = compose.services;

  it('Redis with AOF persistence on a volume, noeviction, and a healthcheck the others wait for', () => {
    const cmd = s.redis?.command ?? [];
    expect(cmd[0]).toBe('redis-server');
    expect(cmd.slice(cmd.indexOf('--appendonly'), cmd.indexOf('--appendonly') + 2)).toEqual(['--appendonly', 'yes']);
    expect(cmd).toContain('noeviction');
    expect(s.redis?.volumes?.[0]).toMatch(/^redis-data:\/data$/);
    expect(compose.volumes).toHaveProperty('redis-data');
    expect(s.redis?.healthcheck?.test).toEqual(['CMD', 'redis-cli', 'ping']);
    expect(s.redis?.profiles).toBeUndefined();
  });

  it('scheduler, N workers and the dashboard run the image with the roles, under the production profile', () => {
    expect(s.scheduler?.command).toEqual(['scheduler']);
    expect(s.worker?.command).toEqual(['worker']);
    expect(s.dashboard?.command).toEqual(['dashboard']);
    expect(String(s.worker?.deploy?.replicas)).toMatch(/^\$\{WORKER_REPLICAS:-[2-9]\}$/);
    for (const name of ['scheduler', 'worker', 'dashboard']) {
      const svc = s[name];
      expect(svc?.profiles, name).toEqual(['production']);
      expect(svc?.build, name).toBe('.');
      expect(svc?.depends_on?.redis?.condition, name).toBe('service_healthy');
      expect(svc?.environment?.REDIS_URL, name).toBe('redis://redis:6379');
      expect(svc?.stop_grace_period, name).toBe('30s');
    }
    // only the dashboard serves HTTP: it keeps the image's /healthz check, the others disable it
    expect(s.dashboard?.healthcheck).toBeUndefined();
    expect(s.scheduler?.healthcheck?.disable).toBe(true);
    expect(s.worker?.healthcheck?.disable).toBe(true);
    expect(s.dashboard?.ports?.[0]).toBe('${DASHBOARD_PORT:-3000}:${PROSPECT_SYNC_PORT:-3000}');
  });

  // every documented variable passed, secrets as files: compose-production.test.ts
  it('every variable the compose file reads or passes is documented', () => {
    const env = s.worker?.environment ?? {};
    const docs = ['docs/operations.md', 'docs/deployment.md', 'docs/configuration.md']
      .map((f) => readFileSync(f, 'utf8'))
      .join('\n');
    const composeVars = [
      ...readFileSync('docker-compose.yml', 'utf8')
        .replace(/#.*$/gm, '')
        .matchAll(/\$\{([A-Z_]+)/g),
    ].map((m) => m[1]!);
    for (const name of [...Object.keys(env), ...composeVars, 'COMPOSE_PROFILES']) expect(docs, name).toContain(name);
  });

  it('the emulators profile runs the whole demo against the compose Redis, kept running by a terminal', () => {
    expect(s.demo?.profiles).toEqual(['emulators']);
    expect(s.demo?.command).toEqual(['demo']);
    expect(s.demo?.tty).toBe(true);
    expect(s.demo?.environment?.REDIS_URL).toBe('redis://redis:6379');
    expect(s.demo?.depends_on?.redis?.condition).toBe('service_healthy');
  });
});
