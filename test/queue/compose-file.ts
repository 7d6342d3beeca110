/**
 * docker-compose.yml read as Compose would (no Docker engine here): variable interpolation, the `<<` merge keys,
 * structural checks after the Compose Specification's JSON schema (no npm package ships it; these are the parts this
 * file uses), and a service resolved to what its container would get: argv, environment, mounts and secrets.
 */
import { readFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { parse } from 'yaml';

export interface ComposeService {
  image?: string;
  build?: string;
  command?: string[];
  entrypoint?: string[];
  profiles?: string[];
  environment?: Record<string, string | number | boolean | null>;
  healthcheck?: { disable?: boolean; test?: string[] };
  ports?: string[];
  volumes?: string[];
  secrets?: string[];
  depends_on?: Record<string, { condition: string }>;
  [key: string]: unknown;
}

export interface ComposeFile {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
  secrets?: Record<string, { file?: string; environment?: string }>;
  [key: string]: unknown;
}

/** Compose's `${VAR}`, `${VAR:-default}`, `${VAR-default}`, `${VAR:?err}`, `$VAR` and `$$`, in every string. */
export function interpolateCompose(text: string, env: Record<string, string | undefined>): string {
  return text.replace(
    /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?)([-?])([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g,
    (m, name?: string, colon?: string, op?: string, arg?: string, bare?: string) => {
      if (m === '$$') return '$';
      const key = (name ?? bare)!;
      const value = env[key];
      const missing = value === undefined || (colon === ':' && value === '');
      if (op === '-') return missing ? (arg ?? '') : value!;
      if (op === '?' && missing) throw new Error(`compose: required variable ${key} is missing: ${arg ?? ''}`);
      return value ?? '';
    },
  );
}

export function readCompose(path: string, env: Record<string, string | undefined>): ComposeFile {
  return parse(interpolateCompose(readFileSync(path, 'utf8'), env), { merge: true }) as ComposeFile;
}

const TOP = new Set(['version', 'name', 'services', 'networks', 'volumes', 'secrets', 'configs', 'include']);
// compose-spec.json, definitions.service.properties (the commonly used ones; the schema forbids any other non-x- key)
const SERVICE = new Set([
  'build',
  'image',
  'command',
  'entrypoint',
  'environment',
  'env_file',
  'ports',
  'expose',
  'volumes',
  'secrets',
  'configs',
  'depends_on',
  'deploy',
  'healthcheck',
  'profiles',
  'restart',
  'stop_grace_period',
  'stop_signal',
  'tty',
  'stdin_open',
  'user',
  'working_dir',
  'networks',
  'labels',
  'logging',
  'init',
  'read_only',
  'container_name',
  'hostname',
  'ulimits',
  'mem_limit',
  'cpus',
  'extra_hosts',
  'cap_drop',
  'cap_add',
  'security_opt',
  'tmpfs',
  'pull_policy',
  'scale',
]);
const HEALTHCHECK = new Set(['disable', 'test', 'interval', 'timeout', 'retries', 'start_period', 'start_interval']);
const CONDITIONS = new Set(['service_started', 'service_healthy', 'service_completed_successfully']);
const RESTART = new Set(['no', 'always', 'on-failure', 'unless-stopped']);

/** Problems the Compose schema (and `docker compose config`) would report; [] when the file is valid. */
export function composeProblems(c: ComposeFile): string[] {
  const out: string[] = [];
  const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');
  for (const k of Object.keys(c)) if (!TOP.has(k) && !k.startsWith('x-')) out.push(`top-level key ${k} is not allowed`);
  if (!c.services || typeof c.services !== 'object') return [...out, 'services: required map'];
  for (const [name, s] of Object.entries(c.services)) {
    const at = `services.${name}`;
    if (!/^[a-zA-Z0-9._-]+$/.test(name)) out.push(`${at}: invalid service name`);
    for (const k of Object.keys(s)) if (!SERVICE.has(k) && !k.startsWith('x-')) out.push(`${at}.${k} is not allowed`);
    if (!s.image && !s.build) out.push(`${at}: needs image or build`);
    for (const k of ['command', 'entrypoint', 'profiles', 'ports', 'volumes', 'secrets'] as const) {
      if (s[k] !== undefined && !strings(s[k])) out.push(`${at}.${k}: expected an array of strings`);
    }
    for (const [k, v] of Object.entries(s.environment ?? {})) {
      if (v !== null && !['string', 'number', 'boolean'].includes(typeof v))
        out.push(`${at}.environment.${k}: expected a scalar or null`);
    }
    for (const [dep, d] of Object.entries(s.depends_on ?? {})) {
      if (!c.services[dep]) out.push(`${at}.depends_on: no service ${dep}`);
      if (!CONDITIONS.has(d.condition)) out.push(`${at}.depends_on.${dep}.condition: ${d.condition}`);
    }
    if (s.restart !== undefined && !RESTART.has(String(s.restart))) out.push(`${at}.restart: ${String(s.restart)}`);
    for (const k of Object.keys(s.healthcheck ?? {}))
      if (!HEALTHCHECK.has(k)) out.push(`${at}.healthcheck.${k} is not allowed`);
    for (const p of s.ports ?? [])
      if (!/^(?:[\d.]+:)?\d+(?:-\d+)?:\d+(?:-\d+)?(?:\/(?:tcp|udp))?$/.test(p)) out.push(`${at}.ports: ${p}`);
    for (const v of s.volumes ?? []) {
      const [src, target, mode] = v.split(':');
      if (!src || !target?.startsWith('/') || (mode !== undefined && !/^(ro|rw)$/.test(mode)))
        out.push(`${at}.volumes: ${v}`);
      else if (!/^[./~$]/.test(src) && !(src in (c.volumes ?? {}))) out.push(`${at}.volumes: undefined volume ${src}`);
    }
    for (const sec of s.secrets ?? []) if (!c.secrets?.[sec]) out.push(`${at}.secrets: undefined secret ${sec}`);
  }
  for (const [name, sec] of Object.entries(c.secrets ?? {})) {
    if (Number(Boolean(sec.file)) + Number(Boolean(sec.environment)) !== 1)
      out.push(`secrets.${name}: needs exactly one of file, environment`);
  }
  return out;
}

export interface ResolvedService {
  argv: string[];
  env: Record<string, string>;
  /** container path -> host path */
  mounts: Record<string, string>;
}

/**
 * What one service's container gets: the image's ENTRYPOINT + the service's command, the image's ENV under the
 * service's environment (a null value passes the host's variable through only when set), bind mounts and secrets
 * (`/run/secrets/<name>`) resolved to host paths against the project directory.
 */
export function resolveService(
  c: ComposeFile,
  name: string,
  image: { entrypoint: string[]; cmd: string[]; env: Record<string, string> },
  projectDir: string,
  hostEnv: Record<string, string | undefined>,
): ResolvedService {
  const s = c.services[name];
  if (!s) throw new Error(`no service ${name}`);
  const env: Record<string, string> = { ...image.env };
  for (const [k, v] of Object.entries(s.environment ?? {})) {
    if (v !== null) env[k] = String(v);
    else if (hostEnv[k] !== undefined) env[k] = hostEnv[k];
  }
  const abs = (p: string): string => (isAbsolute(p) ? p : resolve(projectDir, p));
  const mounts: Record<string, string> = {};
  for (const v of s.volumes ?? []) {
    const [src, target] = v.split(':');
    if (src && target && /^[./~]/.test(src)) mounts[target] = abs(src);
  }
  for (const sec of s.secrets ?? []) {
    const file = c.secrets?.[sec]?.file;
    if (file) mounts[join('/run/secrets', sec)] = abs(file);
  }
  return { argv: [...(s.entrypoint ?? image.entrypoint), ...(s.command ?? image.cmd)], env, mounts };
}
