#!/usr/bin/env node
// Installed entry point: runs the compiled CLI (dist/) when built, otherwise the TypeScript source through tsx.
// It never runs a dist/ older than the source next to it, and says what to do instead of a module-not-found trace.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join, relative } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const built = join(root, 'dist', 'src', 'cli', 'main.js');
const SOURCE_DIRS = ['src', 'jobs'];

function fail(message) {
  process.stderr.write(`prospect-sync: ${message}\n`);
  process.exit(1);
}

/**
 * The most recently changed .ts or .lua file under src/ and jobs/ (absent in the container image: nothing to compare).
 */
function newestSource() {
  let newest;
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts') || entry.name.endsWith('.lua')) {
        const mtimeMs = statSync(path).mtimeMs;
        if (!newest || mtimeMs > newest.mtimeMs) newest = { path, mtimeMs };
      }
    }
  };
  for (const dir of SOURCE_DIRS) if (existsSync(join(root, dir))) walk(join(root, dir));
  return newest;
}

if (existsSync(built)) {
  const source = newestSource();
  if (source && source.mtimeMs > statSync(built).mtimeMs) {
    fail(
      `dist/ is older than the source (${relative(root, source.path)} changed after the last build). ` +
        'Run `npm run build` (or delete dist/ to run the source through tsx).',
    );
  }
  await import(pathToFileURL(built).href);
} else {
  let register;
  try {
    ({ register } = await import('tsx/esm/api'));
  } catch {
    fail(
      'no compiled output (dist/src/cli/main.js) and no tsx to run the TypeScript source. ' +
        'Build first: `npm ci && npm run build` (then `npm ci --omit=dev` is enough to run), or use the ' +
        'container image.',
    );
  }
  register();
  await import(pathToFileURL(join(root, 'src', 'cli', 'main.ts')).href);
}
