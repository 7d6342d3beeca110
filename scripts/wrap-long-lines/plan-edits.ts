/**
 * Chooses, for each over-long line of a file, the one change that shortens it: re-wrap the comment that crosses the
 * width, split the literal that does, move a trailing comment above its code, or split the line's longest literal.
 * A line none of these can shorten is reported with why.
 */
import ts from 'typescript';
import { MAX_WIDTH } from './line-width.js';
import type { Edit } from './source-lines.js';
import { SourceLines } from './source-lines.js';
import { splitRegex } from './split-regex.js';
import { isStringLike, splitLiteral, type StringLike } from './split-literal.js';
import { wrapBlockComment, wrapLineComment, type Wrapped } from './wrap-comment.js';

/** A line left over the width (1-based) and why. */
export interface Unwrapped {
  line: number;
  reason: string;
}

/** Why a literal must stay whole, or undefined when it may be split. */
export type KeepWhole = (node: StringLike) => string | undefined;

export interface Plan {
  edits: Edit[];
  unwrapped: Unwrapped[];
}

/** A literal shorter than this on its line is not worth splitting to shorten the code around it. */
const WORTH_SPLITTING = 24;

function overWidth(lines: SourceLines): number[] {
  const over: number[] = [];
  for (let n = 0; n < lines.count; n++) if (lines.column(lines.end(n)) > MAX_WIDTH) over.push(n);
  return over;
}

/** The comments of a TypeScript or JavaScript file, once each. */
function commentsOf(sf: ts.SourceFile): ts.CommentRange[] {
  const byPos = new Map<number, ts.CommentRange>();
  const add = (ranges: ts.CommentRange[] | undefined) => ranges?.forEach((r) => byPos.set(r.pos, r));
  const visit = (node: ts.Node): void => {
    if (node.kind >= ts.SyntaxKind.FirstJSDocNode && node.kind <= ts.SyntaxKind.LastJSDocNode) return;
    if (node.kind < ts.SyntaxKind.FirstNode || node.kind === ts.SyntaxKind.EndOfFileToken) {
      add(ts.getLeadingCommentRanges(sf.text, node.pos));
      add(ts.getTrailingCommentRanges(sf.text, node.end));
    }
    node.getChildren(sf).forEach(visit);
  };
  visit(sf);
  add(ts.getLeadingCommentRanges(sf.text, 0));
  return [...byPos.values()].sort((a, b) => a.pos - b.pos);
}

function literalsOf(sf: ts.SourceFile): { literals: StringLike[]; regexes: ts.RegularExpressionLiteral[] } {
  const literals: StringLike[] = [];
  const regexes: ts.RegularExpressionLiteral[] = [];
  const visit = (node: ts.Node): void => {
    if (isStringLike(node)) literals.push(node);
    if (ts.isRegularExpressionLiteral(node)) regexes.push(node);
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return { literals, regexes };
}

/** The edits that shorten a TypeScript or JavaScript file's over-long lines, and the lines none can. */
export function planScriptEdits(sf: ts.SourceFile, keepWhole: KeepWhole): Plan {
  const lines = new SourceLines(sf.text);
  const over = overWidth(lines);
  if (over.length === 0) return { edits: [], unwrapped: [] };
  const comments = commentsOf(sf);
  const { literals, regexes } = literalsOf(sf);
  const edits: Edit[] = [];
  const unwrapped: Unwrapped[] = [];
  for (const lineNo of over) {
    const lineStart = lines.start(lineNo);
    const lineEnd = lines.end(lineNo);
    const overPos = lines.positionAt(lineNo, MAX_WIDTH);
    const reasons: string[] = [];
    const attempt = (result: Wrapped | undefined): boolean => {
      if (!result) return false;
      if ('edit' in result) edits.push(result.edit);
      else reasons.push(result.reason);
      return 'edit' in result;
    };
    const wrapComment = (c: ts.CommentRange): Wrapped =>
      c.kind === ts.SyntaxKind.SingleLineCommentTrivia
        ? wrapLineComment(lines, lineNo, c.pos, '//')
        : wrapBlockComment(lines, lineNo, c.pos, c.end);
    const split = (node: StringLike): Wrapped => {
      const reason = keepWhole(node);
      return reason ? { reason } : splitLiteral(node, sf, lines, lineNo);
    };
    // 1. The comment or literal (outermost first: prettier leaves a `${}` whole) that crosses the width.
    const crossingComment = comments.find((c) => c.pos <= overPos && overPos < c.end);
    if (crossingComment && attempt(wrapComment(crossingComment))) continue;
    const crossing = literals
      .filter((l) => l.getStart(sf) <= overPos && overPos < l.end)
      .sort((a, b) => b.end - b.getStart(sf) - (a.end - a.getStart(sf)));
    if (crossing.some((l) => attempt(split(l)))) continue;
    const regex = regexes.find((r) => r.getStart(sf) <= overPos && overPos < r.end);
    if (regex && attempt(splitRegex(regex, sf, lines))) continue;
    // 2. A trailing comment: above its code, unless the line starts inside a multi-line literal.
    const indentEnd = lineStart + (/^\s*/.exec(lines.line(lineNo))?.[0].length ?? 0);
    const startsInside = literals.some((l) => l.getStart(sf) < indentEnd && indentEnd < l.end);
    const trailing = comments.find(
      (c) => c.kind === ts.SyntaxKind.SingleLineCommentTrivia && c.pos > indentEnd && c.pos < lineEnd,
    );
    if (trailing && !startsInside && attempt(wrapComment(trailing))) continue;
    // 3. The line's longest literals, so prettier can lay out the code around them.
    const onLine = literals
      .map((l) => ({ l, width: Math.min(l.end, lineEnd) - Math.max(l.getStart(sf), lineStart) }))
      .filter((x) => x.width >= WORTH_SPLITTING && !crossing.includes(x.l))
      .sort((a, b) => b.width - a.width);
    if (onLine.some((x) => attempt(split(x.l)))) continue;
    const longRegex = regexes.find(
      (r) =>
        r !== regex && r.getStart(sf) >= lineStart && r.end <= lineEnd && r.end - r.getStart(sf) >= WORTH_SPLITTING,
    );
    if (longRegex && attempt(splitRegex(longRegex, sf, lines))) continue;
    unwrapped.push({ line: lineNo + 1, reason: reasons[0] ?? 'code prettier leaves whole' });
  }
  return { edits, unwrapped };
}

/** The same for a Lua script: its `--` comments are re-wrapped; code is left to the hand. */
export function planLuaEdits(text: string): Plan {
  const lines = new SourceLines(text);
  const edits: Edit[] = [];
  const unwrapped: Unwrapped[] = [];
  for (const lineNo of overWidth(lines)) {
    const line = lines.line(lineNo);
    const own = /^\s*--/.exec(line);
    const result: Wrapped = own
      ? wrapLineComment(lines, lineNo, lines.start(lineNo) + own[0].length - 2, '--')
      : { reason: 'Lua code' };
    if ('edit' in result) edits.push(result.edit);
    else unwrapped.push({ line: lineNo + 1, reason: result.reason });
  }
  return { edits, unwrapped };
}
