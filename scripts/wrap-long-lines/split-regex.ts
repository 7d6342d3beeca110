/**
 * Rewrites an over-long regular expression literal as `new RegExp(String.raw`…` + String.raw`…`, 'flags')`: the
 * pieces are the literal's source as written, so the pattern is the same (a regex literal, like `new RegExp`, makes a
 * new object each time it is evaluated). Left alone when its source holds a backtick or a `${`.
 */
import type ts from 'typescript';
import { MAX_WIDTH, widthOf } from './line-width.js';
import type { SourceLines } from './source-lines.js';
import type { Split } from './split-literal.js';

const RAW = 'String.raw`';

export function splitRegex(node: ts.RegularExpressionLiteral, sf: ts.SourceFile, lines: SourceLines): Split {
  const text = node.getText(sf);
  const end = text.lastIndexOf('/');
  const source = text.slice(1, end);
  const flags = text.slice(end + 1);
  if (source.includes('`') || source.includes('${')) return { reason: 'a regular expression with a backtick or ${' };
  const lineNo = lines.lineOf(node.getStart(sf));
  const indent = widthOf(/^\s*/.exec(lines.line(lineNo))?.[0] ?? '');
  const pieceWidth = MAX_WIDTH - indent - 8 - RAW.length - 3;
  // Cut after a token (a character, or a backslash and the character it escapes), preferably after `|`, `)` or `]`.
  const pieces: string[] = [];
  let from = 0;
  let best = -1;
  for (let i = 0; i < source.length;) {
    i += source[i] === '\\' ? 2 : 1;
    if (/[|)\] ]/.test(source[i - 1] ?? '')) best = i;
    if (widthOf(source.slice(from, i)) > pieceWidth) {
      const cut = best > from ? best : i - (source[i - 2] === '\\' ? 2 : 1);
      pieces.push(source.slice(from, cut));
      from = cut;
      best = -1;
    }
  }
  pieces.push(source.slice(from));
  if (pieces.length < 2) return { reason: 'a regular expression with nothing to cut' };
  const joined = pieces.map((piece) => `${RAW}${piece}\``).join(' + ');
  return {
    edit: { start: node.getStart(sf), end: node.end, text: `new RegExp(${joined}${flags ? `, '${flags}'` : ''})` },
  };
}
