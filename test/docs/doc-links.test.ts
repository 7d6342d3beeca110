/**
 * Every link of the README and docs/ resolves: a relative link to a file that exists (and to a heading it has), and
 * every `docs/<name>.md` the text names exists.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return markdownFiles(path);
    return e.name.endsWith('.md') ? [path] : [];
  });
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
const slug = (heading: string): string =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');

/** The text outside fenced code blocks (a link-like text inside one is code). */
const prose = (text: string): string => text.replace(/^```[\s\S]*?^```/gm, '');

function anchors(file: string): Set<string> {
  const headings = [...prose(readFileSync(file, 'utf8')).matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1]!));
  return new Set(headings);
}

/** Problems of one file's links, as `file: link: what`. */
function linkProblems(file: string): string[] {
  const text = prose(readFileSync(file, 'utf8'));
  const problems: string[] = [];
  const name = relative(ROOT, file);
  for (const [, target] of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    if (/^[a-z]+:/.test(target!)) continue;
    const [path, anchor] = target!.split('#') as [string, string | undefined];
    const resolved = path === '' ? file : join(dirname(file), path);
    if (!existsSync(resolved)) problems.push(`${name}: ${target}: no such file`);
    else if (anchor !== undefined && resolved.endsWith('.md') && !anchors(resolved).has(anchor))
      problems.push(`${name}: ${target}: no heading #${anchor}`);
  }
  for (const [mention] of text.matchAll(/(?<![\w/.-])docs\/[\w/-]+\.md/g))
    if (!existsSync(join(ROOT, mention))) problems.push(`${name}: ${mention}: no such file`);
  return problems;
}

/** Longest a hand-written doc may grow before it is split by topic (the generated references are not counted). */
const MAX_LINES = { doc: 400, readme: 120 };
const lineCount = (file: string): number => readFileSync(file, 'utf8').trimEnd().split('\n').length;

describe('sizes of the README and docs/', () => {
  it(`keep the README within ${MAX_LINES.readme} lines and each hand-written doc within ${MAX_LINES.doc}`, () => {
    const docs = markdownFiles(join(ROOT, 'docs')).filter((f) => !f.includes(`${join('docs', 'reference')}`));
    const over = [
      ...docs.filter((f) => lineCount(f) > MAX_LINES.doc),
      ...[join(ROOT, 'README.md')].filter((f) => lineCount(f) > MAX_LINES.readme),
    ].map((f) => `${relative(ROOT, f)}: ${lineCount(f)} lines`);
    expect(over).toEqual([]);
  });
});

describe('links in the README and docs/', () => {
  const files = [join(ROOT, 'README.md'), join(ROOT, 'CHANGELOG.md'), ...markdownFiles(join(ROOT, 'docs'))];

  it('resolve: files exist, anchors are headings of their file', () => {
    expect(files.flatMap(linkProblems)).toEqual([]);
  });

  it('name a missing file, a missing heading and a moved doc', () => {
    const dir = mkdtempSync(join(tmpdir(), 'doc-links-'));
    const probe = join(dir, 'probe.md');
    writeFileSync(
      probe,
      '# Top\n\n[a](nope.md) [b](#top) [c](#gone) see docs/nope.md\n```\n[d](inside-code.md)\n```\n',
    );
    try {
      expect(linkProblems(probe).map((p) => p.replace(/^.*probe\.md: /, ''))).toEqual([
        'nope.md: no such file',
        '#gone: no heading #gone',
        'docs/nope.md: no such file',
      ]);
    } finally {
      rmSync(dir, { recursive: true });
    }
  });
});
