/**
 * Wraps every line over 120 characters that prettier leaves whole: comments re-wrapped at word boundaries, string
 * and template literals split into concatenations of the same value, an over-long regex rewritten as a `new RegExp`
 * of its own source, then prettier on the changed files, round after round until nothing more can be wrapped. Each
 * changed file is proven unchanged in behaviour (its syntax tree without comments, layout and cuts is the same) or
 * put back. Prints each line it could not wrap (file:line and why) and exits 1 if any remain. Running it again on
 * its own output changes nothing.
 *
 *   npx tsx scripts/wrap-long-lines.ts [files…]     (default: the tracked .ts .mts .cts .js .mjs .cjs .lua files)
 *   npx tsx scripts/wrap-long-lines.ts --prove <rev> (the files changed since <rev> behave as they did at <rev>)
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { behaviourOf } from './wrap-long-lines/same-behaviour.js';
import { wrapTexts } from './wrap-long-lines/wrap-files.js';

const SOURCES = ['*.ts', '*.mts', '*.cts', '*.js', '*.mjs', '*.cjs', '*.lua'];

function git(args: string[]): string {
  return execFileSync('git', args, { encoding: 'utf8', maxBuffer: 1 << 28 });
}

async function wrap(files: string[]): Promise<number> {
  const started = Date.now();
  const originals = new Map(files.filter((file) => existsSync(file)).map((file) => [file, readFileSync(file, 'utf8')]));
  const { texts, left } = await wrapTexts(originals);
  let written = 0;
  for (const [file, text] of texts) {
    if (text === originals.get(file)) continue;
    writeFileSync(file, text);
    written++;
  }
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  console.log(`wrap-long-lines: ${written} file(s) rewritten, each proven to behave the same (${seconds} s)`);
  if (left.length === 0) return 0;
  console.log(`${left.length} line(s) over 120 could not be wrapped (wrap them by hand):`);
  for (const line of left) console.log(`  ${line}`);
  return 1;
}

/** Every source file changed since `rev` behaves as it did at `rev`. */
function prove(rev: string): number {
  const files = git(['diff', '--name-only', '--diff-filter=M', rev, '--', ...SOURCES])
    .split('\n')
    .filter(Boolean);
  const differ = files.filter(
    (file) => behaviourOf(file, git(['show', `${rev}:${file}`])) !== behaviourOf(file, readFileSync(file, 'utf8')),
  );
  console.log(
    `wrap-long-lines --prove ${rev}: ${files.length - differ.length} of ${files.length} file(s) behave the same`,
  );
  for (const file of differ) console.log(`  differs: ${file}`);
  return differ.length === 0 ? 0 : 1;
}

const args = process.argv.slice(2);
if (args[0] === '--prove') {
  if (!args[1]) throw new Error('--prove needs a revision to compare with, e.g. --prove HEAD');
  process.exitCode = prove(args[1]);
} else {
  const files =
    args.length > 0
      ? args
      : git(['ls-files', '-z', '--', ...SOURCES])
          .split('\0')
          .filter(Boolean);
  process.exitCode = await wrap(files);
}
