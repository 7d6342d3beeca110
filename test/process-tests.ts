/**
 * Which test files start processes or browsers: those that import `node:child_process` or `playwright-core`,
 * directly or through the files of ours they import statically; and those that wait on real time (rate windows
 * that cannot be shortened) and say so with a `// @slow: <why>` line. `npm run test:quick` leaves them out (the
 * edit-test loop); `npm test`, which CI runs, keeps every file. Read from the sources, so a new test falls on the
 * right side by itself.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

const STARTS_PROCESSES = new Set(['node:child_process', 'child_process', 'playwright-core', 'playwright']);

/** A test file's own word that it waits on real time. */
const SLOW_MARK = /^\s*\/\/ @slow:/m;

/** `import … from 'x'`, `export … from 'x'` and `import 'x'`; `import type` never loads a module. */
const STATIC_IMPORT = /^\s*(?:import(?!\s+type\b)[^'"]*?from\s*|export[^'"]*?from\s*|import\s*)['"]([^'"]+)['"]/gm;

function staticImports(source: string): string[] {
  return [...source.matchAll(STATIC_IMPORT)].map((m) => m[1] as string);
}

/** Files under `dir` (relative to `root`) whose name ends with `suffix`, in a stable order. */
function filesUnder(root: string, dir: string, suffix: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith(suffix))
    .map((name) => join(dir, name).split('\\').join('/'))
    .sort();
}

/** The test files (paths relative to `root`, e.g. `test/e2e/authoring.test.ts`) that start processes or browsers. */
export function processTestFiles(root: string): string[] {
  const importsOf = new Map<string, string[]>();
  const imports = (file: string): string[] => {
    let found = importsOf.get(file);
    if (!found) {
      let source = '';
      try {
        source = readFileSync(file, 'utf8');
      } catch {
        // a package or a generated file: not ours to follow
      }
      found = staticImports(source);
      importsOf.set(file, found);
    }
    return found;
  };
  const startsProcesses = (testFile: string): boolean => {
    const seen = new Set([testFile]);
    const todo = [testFile];
    for (let file = todo.pop(); file !== undefined; file = todo.pop()) {
      for (const spec of imports(file)) {
        if (STARTS_PROCESSES.has(spec)) return true;
        const next = resolve(dirname(file), spec).replace(/\.js$/, '.ts');
        if (spec.startsWith('.') && !seen.has(next)) {
          seen.add(next);
          todo.push(next);
        }
      }
    }
    return false;
  };
  const slow = (testFile: string): boolean => SLOW_MARK.test(readFileSync(testFile, 'utf8'));
  return filesUnder(root, 'test', '.test.ts').filter(
    (file) => startsProcesses(join(root, file)) || slow(join(root, file)),
  );
}
