/**
 * How a test starts a TypeScript file of ours in a child Node process: its copy the suite compiled once
 * (test/compiled-sources.ts), else through tsx (a test file run without the suite's setup).
 */
import { join, relative } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');

/** Node's arguments that run `tsFile` (an absolute path under the project). */
export function nodeEntry(tsFile: string): string[] {
  const compiled = process.env.PS_TEST_COMPILED;
  if (!compiled) return ['--import', 'tsx', tsFile];
  return [join(compiled, relative(ROOT, tsFile)).replace(/\.ts$/, '.js')];
}
