/**
 * Runs the real worker (the compiled CLI, `node dist/src/cli/main.js ...`) as its own process and measures it: CPU time
 * and peak RSS from the process's own getrusage at exit (bench/lib/report-usage.mjs), RSS over time from /proc.
 * The compiled CLI is what production runs; it is (re)built first when missing or older than the source.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CLI = join(ROOT, 'dist', 'src', 'cli', 'main.js');
/** The TypeScript source through tsx: no build, slower to start (tests). */
const CLI_SOURCE = ['--import', 'tsx', join(ROOT, 'src', 'cli', 'main.ts')];
const REPORTER = join(ROOT, 'bench', 'lib', 'report-usage.mjs');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    newest = Math.max(newest, e.isDirectory() ? newestMtime(p) : e.name.endsWith('.ts') ? statSync(p).mtimeMs : 0);
  }
  return newest;
}

/** Compiles src/ and jobs/ into dist/ unless dist is newer than every source file. */
export function ensureBuilt(): void {
  if (
    existsSync(CLI) &&
    statSync(CLI).mtimeMs >= Math.max(newestMtime(join(ROOT, 'src')), newestMtime(join(ROOT, 'jobs')))
  )
    return;
  process.stderr.write('building dist/ (npm run build) ...\n');
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'inherit' });
}

export interface Usage {
  cpuMs: number;
  maxRssMb: number;
}

export interface WorkerResult {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  wallMs: number;
  usage: Usage;
  /** Resident set size sampled every `sampleMs`: [ms since start, MB]. */
  rss: [number, number][];
}

export interface WorkerProcess {
  pid: number;
  child: ChildProcess;
  /** Resolves when the process exits (by itself or after stop()). */
  done: Promise<WorkerResult>;
  /** SIGTERM (graceful shutdown) and wait. */
  stop(): Promise<WorkerResult>;
}

function rssMb(pid: number): number | undefined {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Starts `prospect-sync <args>` from dist/ (`runtime: 'tsx'`: from the source) with `env` added; `cpuProfDir` adds
 * Node's --cpu-prof, `nodeArgs` any other Node flag.
 */
export function startWorker(
  args: string[],
  env: Record<string, string>,
  opts: { cpuProfDir?: string; sampleMs?: number; nodeArgs?: string[]; runtime?: 'dist' | 'tsx' } = {},
): WorkerProcess {
  const dir = mkdtempSync(join(tmpdir(), 'bench-usage-'));
  const usageFile = join(dir, 'usage.json');
  const node = [
    '--import',
    REPORTER,
    ...(opts.nodeArgs ?? []),
    ...(opts.cpuProfDir ? ['--cpu-prof', '--cpu-prof-dir', opts.cpuProfDir] : []),
    ...(opts.runtime === 'tsx' ? CLI_SOURCE : [CLI]),
    ...args,
  ];
  const t0 = performance.now();
  const child = spawn(process.execPath, node, {
    cwd: ROOT,
    env: { ...process.env, ...env, BENCH_USAGE_FILE: usageFile },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
  });
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
  });
  const rss: [number, number][] = [];
  const timer = setInterval(() => {
    const mb = rssMb(child.pid!);
    if (mb !== undefined) rss.push([Math.round(performance.now() - t0), Math.round(mb * 10) / 10]);
  }, opts.sampleMs ?? 500);
  const done = (async (): Promise<WorkerResult> => {
    const [code] = (await once(child, 'exit')) as [number | null];
    clearInterval(timer);
    const wallMs = performance.now() - t0;
    let usage: Usage = { cpuMs: Number.NaN, maxRssMb: Number.NaN };
    if (existsSync(usageFile)) {
      const u = JSON.parse(readFileSync(usageFile, 'utf8')) as { userMs: number; systemMs: number; maxRssKb: number };
      usage = { cpuMs: u.userMs + u.systemMs, maxRssMb: u.maxRssKb / 1024 };
    }
    rmSync(dir, { recursive: true, force: true });
    return { exitCode: code, stdout, stderr, wallMs, usage, rss };
  })();
  return {
    pid: child.pid!,
    child,
    done,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      return done;
    },
  };
}

/** The Node flags the image gives the worker (the Dockerfile's `ENV NODE_OPTIONS=`): a bench runs it as deployed. */
export function imageNodeOptions(): string[] {
  const line = /^ENV NODE_OPTIONS=(.*)$/m.exec(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'));
  if (line === null) throw new Error('Dockerfile: no `ENV NODE_OPTIONS=` line');
  return line[1]!.replace(/^"|"$/g, '').split(' ').filter(Boolean);
}

/** The last stdout line of a `--json` command, parsed. */
export function lastJson<T>(stdout: string): T {
  const lines = stdout.trim().split('\n');
  return JSON.parse(lines[lines.length - 1]!) as T;
}
