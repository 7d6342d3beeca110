/**
 * Re-wraps an over-long comment line at word boundaries, keeping its indentation and prefix (`// `, ` * `, `-- `).
 * A trailing comment moves onto its own line above the code. Directive comments (eslint, ts, prettier) are left.
 */
import { MAX_WIDTH, widthOf } from './line-width.js';
import type { Edit, SourceLines } from './source-lines.js';

export type Wrapped = { edit: Edit } | { reason: string };

/** Comments whose words or place mean something to a tool: wrapping them would change what the tool does. */
const DIRECTIVE =
  /^(?:\/\/\/|\/\/\s*#|\/\*[!#]|(?:\/\/|\/\*+|--)\s*(?:eslint|@ts-|prettier-ignore|istanbul|c8|@vite|global\b|jshint))/;

/** An own-line `// eslint-disable-next-line rules -- why`, whose description may move above it. */
const DESCRIBED_DISABLE = /^(\s*)(\/\/\s*eslint-disable(?:-next-line)?\s+\S.*?)\s+--\s+(\S.*)$/;

/** A list item's marker: its continuation lines hang under the item's text. */
const LIST_MARKER = /^(?:[-*•+]|\d+[.)])\s+/;

/** A remainder must not start a new line with something a tool would read as a tag or a directive. */
function canStartLine(rest: string): boolean {
  return !/^(?:@|\*\/|eslint|prettier-ignore|#|\[\[|\/)/.test(rest);
}

interface Break {
  index: number;
  fits: boolean;
}

/**
 * Where to break `line` (a UTF-16 index of a space after `from` and before `limit`): the last one that leaves the
 * head within the width, else the first one (the head stays too long, but shorter); none if no space qualifies.
 */
export function findBreak(line: string, from: number, limit = line.length): Break | undefined {
  const candidates: number[] = [];
  for (let i = from + 1; i < limit; i++) {
    if (line[i] !== ' ' || line[i - 1] === ' ') continue;
    if (line.slice(from, i).trim() === '') continue;
    const rest = line.slice(i).trimStart();
    if (line.slice(i, limit).trim() === '' || !canStartLine(rest)) continue;
    candidates.push(i);
  }
  const fitting = candidates.filter((i) => widthOf(line.slice(0, i).trimEnd()) <= MAX_WIDTH);
  // Inside a `code span` only when nothing else fits.
  const outsideCode = fitting.filter((i) => (line.slice(from, i).split('`').length - 1) % 2 === 0);
  const best = outsideCode[outsideCode.length - 1] ?? fitting[fitting.length - 1];
  if (best !== undefined) return { index: best, fits: true };
  return candidates[0] === undefined ? undefined : { index: candidates[0], fits: false };
}

/** The prefix of a continuation line: the line's own prefix, hanging under a list item's text. */
function continuationPrefix(prefix: string, text: string): string {
  const marker = LIST_MARKER.exec(text);
  return marker ? prefix + ' '.repeat(marker[0].length) : prefix;
}

/** Words joined into lines of `prefix` + words, each within the width where the words allow. */
function fillLines(prefix: string, words: string[]): string[] {
  const lines: string[] = [];
  let current = '';
  for (const word of words) {
    if (current !== '' && widthOf(`${prefix}${current} ${word}`) > MAX_WIDTH && canStartLine(word)) {
      lines.push(prefix + current);
      current = word;
    } else {
      current = current === '' ? word : `${current} ${word}`;
    }
  }
  if (current !== '') lines.push(prefix + current);
  return lines;
}

/**
 * The head and the continuation of `line` broken at `brk`; the continuation takes in the next line when that line
 * carries on the same sentence under the same prefix (it starts with a lower-case letter), so a paragraph re-flows.
 */
function breakLine(
  lines: SourceLines,
  lineNo: number,
  brk: Break,
  prefix: string,
  nextMayJoin: boolean,
): { edit: Edit } {
  const line = lines.line(lineNo);
  const head = line.slice(0, brk.index).trimEnd();
  const rest = line.slice(brk.index).trimStart();
  const next = lineNo + 1 < lines.count ? lines.line(lineNo + 1) : undefined;
  const nextText = next?.startsWith(prefix) ? next.slice(prefix.length) : '';
  if (nextMayJoin && /^[a-z]/.test(nextText) && !DIRECTIVE.test((next ?? '').trim())) {
    const joined = `${rest} ${nextText}`;
    return { edit: { start: lines.start(lineNo), end: lines.end(lineNo + 1), text: `${head}\n${prefix}${joined}` } };
  }
  return { edit: { start: lines.start(lineNo), end: lines.end(lineNo), text: `${head}\n${prefix}${rest}` } };
}

/** A `//` (or Lua `--`) comment running from `start` to the end of line `lineNo`. */
export function wrapLineComment(lines: SourceLines, lineNo: number, start: number, marker: '//' | '--'): Wrapped {
  const line = lines.line(lineNo);
  const at = start - lines.start(lineNo);
  const comment = line.slice(at);
  const described = DESCRIBED_DISABLE.exec(line);
  if (described) {
    // The description goes on a line of its own above: the directive keeps applying to the line below it.
    const [, indent, directive, description] = described;
    const edit = {
      start: lines.start(lineNo),
      end: lines.end(lineNo),
      text: `${indent}// ${description}\n${indent}${directive}`,
    };
    return { edit };
  }
  if (DIRECTIVE.test(comment)) return { reason: 'a directive comment' };
  if (marker === '--' && comment.startsWith('--[[')) return { reason: 'a Lua block comment' };
  const before = line.slice(0, at);
  if (before.trim() !== '') {
    // A trailing comment: onto its own line above the code, at the line's indentation.
    const indent = /^\s*/.exec(line)?.[0] ?? '';
    return {
      edit: {
        start: lines.start(lineNo),
        end: lines.end(lineNo),
        text: `${indent}${comment.trim()}\n${before.trimEnd()}`,
      },
    };
  }
  const prefix = new RegExp(`^\\s*${marker === '//' ? '//+' : '--+'}\\s*`).exec(line)?.[0] ?? '';
  const brk = findBreak(line, prefix.length);
  if (!brk) return { reason: 'a comment with no word boundary to break at' };
  return breakLine(lines, lineNo, brk, continuationPrefix(prefix, line.slice(prefix.length)), true);
}

/** A `/* … *\/` comment from `start` to `end`, over-long on line `lineNo`. */
export function wrapBlockComment(lines: SourceLines, lineNo: number, start: number, end: number): Wrapped {
  const comment = lines.text.slice(start, end);
  if (DIRECTIVE.test(comment)) return { reason: 'a directive comment' };
  const first = lines.lineOf(start);
  const last = lines.lineOf(end);
  const line = lines.line(lineNo);
  const opener = comment.startsWith('/**') ? '/**' : '/*';
  if (first === last) {
    const before = line.slice(0, start - lines.start(lineNo));
    const after = line.slice(end - lines.start(lineNo));
    if (before.trim() !== '' || after.trim() !== '') return { reason: 'a block comment beside code' };
    const words = comment.slice(opener.length, -2).trim().split(/\s+/);
    const body = fillLines(`${before} * `, words);
    return { edit: { start, end, text: [opener, ...body, `${before} */`].join('\n') } };
  }
  // A line of a comment spanning several lines: its prefix is the line's ` * ` (or bare indentation).
  const lineStart = lines.start(lineNo);
  let from: number;
  let prefix: string;
  if (lineNo === first) {
    from = start - lineStart + opener.length;
    const second = lines.line(first + 1);
    prefix = /^\s*\*(?!\/)\s*/.exec(second)?.[0] ?? `${' '.repeat(start - lineStart)} * `;
  } else {
    prefix = /^\s*\*(?!\/)\s*/.exec(line)?.[0] ?? /^\s*/.exec(line)?.[0] ?? '';
    from = prefix.length;
  }
  const limit = lineNo === last ? end - lineStart - 2 : line.length;
  const brk = findBreak(line, from, limit);
  if (!brk) return { reason: 'a comment with no word boundary to break at' };
  const text = line.slice(from).trimStart();
  return breakLine(lines, lineNo, brk, continuationPrefix(prefix, text), lineNo < last);
}
