/**
 * bin/prospect-sync.js in a scratch copy of the package layout: runs dist/ when it is newer than the source, refuses
 * a dist/ older than any source file (naming it), and without dist/ or tsx says what to do instead of printing
 * "Cannot find package 'tsx'".
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function layout(): { root: string; run: () => { status: number | null; stdout: string; stderr: string } } {
  // under the OS temp dir, so no node_modules above it resolves tsx
  const root = mkdtempSync(join(tmpdir(), 'ps-bin-'));
  dir = root;
  mkdirSync(join(root, 'bin'));
  cpSync('bin/prospect-sync.js', join(root, 'bin', 'prospect-sync.js'));
  writeFileSync(join(root, 'package.json'), '{"type":"module"}');
  return {
    root,
    run: () => {
      const r = spawnSync(process.execPath, [join(root, 'bin', 'prospect-sync.js'), 'validate'], { encoding: 'utf8' });
      return { status: r.status, stdout: r.stdout, stderr: r.stderr };
    },
  };
}

const file = (path: string, text: string, mtimeS: number): void => {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
  utimesSync(path, mtimeS, mtimeS);
};

describe('bin/prospect-sync.js', () => {
  const T = 1_700_000_000;

  it(
    'runs the compiled CLI when dist/ is newer than every source file (and when there is no source, as in the ' +
      'image)',
    () => {
      const { root, run } = layout();
      file(
        join(root, 'dist/src/cli/main.js'),
        "process.stdout.write('compiled ran ' + process.argv.slice(2).join(' '));",
        T + 100,
      );
      expect(run()).toMatchObject({ status: 0, stdout: 'compiled ran validate' });
      file(join(root, 'src/cli/main.ts'), '', T);
      file(join(root, 'jobs/sync-search.ts'), '', T + 50);
      expect(run()).toMatchObject({ status: 0, stdout: 'compiled ran validate' });
    },
  );

  it('refuses a dist/ older than the source, naming the newer file and the fix', () => {
    const { root, run } = layout();
    file(join(root, 'dist/src/cli/main.js'), "process.stdout.write('compiled ran');", T);
    file(join(root, 'src/cli/main.ts'), '', T - 10);
    file(join(root, 'jobs/sync-search/deep/changed.ts'), '', T + 10);
    const r = run();
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      'prospect-sync: dist/ is older than the source (jobs/sync-search/deep/changed.ts changed after the last ' +
        'build). Run `npm run build` (or delete dist/ to run the source through tsx).\n',
    );
  });

  it('a Lua script changed after the build makes dist/ stale too (the build copies .lua files into it)', () => {
    const { root, run } = layout();
    file(join(root, 'dist/src/cli/main.js'), "process.stdout.write('compiled ran');", T);
    file(join(root, 'src/cli/main.ts'), '', T - 10);
    file(join(root, 'src/shared/governor-acquire.lua'), '', T + 10);
    const r = run();
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('(src/shared/governor-acquire.lua changed after the last build)');
  });

  it('without dist/ and without tsx (npm ci --omit=dev on an unbuilt checkout) says to build', () => {
    const { root, run } = layout();
    file(join(root, 'src/cli/main.ts'), '', T);
    const r = run();
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('no compiled output (dist/src/cli/main.js) and no tsx');
    expect(r.stderr).toContain('npm run build');
    expect(r.stderr).not.toContain('Cannot find package');
  });
});
