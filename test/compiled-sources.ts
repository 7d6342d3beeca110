/**
 * Vitest global setup: the sources compiled once per run (esbuild, no type check, the layout of `npm run build`) into
 * a temporary folder, so each child process a test starts (the CLI, a worker, a governed walker) runs plain
 * JavaScript instead of compiling every file it loads again through tsx (about a third of a CLI start's CPU).
 * `$PS_TEST_COMPILED` names the folder (test/helpers/node-entry.ts); a test file run without this setup (a mutation
 * run) starts its children through tsx.
 */
import { cpSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';

const ROOT = join(import.meta.dirname, '..');
/** The product's sources with their Lua scripts; of `test/`, only the scripts children run (no test files). */
const SOURCES = ['src', 'jobs'];
const CHILD_SCRIPTS = 'test';

function tsFiles(root: string, dir: string, keep: (name: string) => boolean): string[] {
  return readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts') && keep(name))
    .map((name) => join(root, dir, name));
}

/** The compiled tree under `out`: sources and child scripts as JavaScript, the Lua scripts, package.json. */
export async function compileSources(out: string, root = ROOT): Promise<void> {
  await build({
    entryPoints: [
      ...SOURCES.flatMap((dir) => tsFiles(root, dir, () => true)),
      ...tsFiles(root, CHILD_SCRIPTS, (name) => !name.endsWith('.test.ts')),
    ],
    outdir: out,
    outbase: root,
    bundle: false,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    tsconfig: join(root, 'tsconfig.json'),
    logLevel: 'error',
  });
  for (const dir of SOURCES)
    cpSync(join(root, dir), join(out, dir), { recursive: true, filter: (path) => !path.endsWith('.ts') });
  // the CLI reads its version from package.json (which also makes the .js files ES modules); packages resolve
  // from the project's node_modules
  cpSync(join(root, 'package.json'), join(out, 'package.json'));
  symlinkSync(join(root, 'node_modules'), join(out, 'node_modules'), 'dir');
}

export default async function setup(): Promise<() => void> {
  const out = mkdtempSync(join(tmpdir(), 'ps-test-compiled-'));
  await compileSources(out);
  process.env.PS_TEST_COMPILED = out;
  return () => rmSync(out, { recursive: true, force: true });
}
