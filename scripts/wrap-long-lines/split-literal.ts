/**
 * Splits an over-long string or template literal into a concatenation of pieces (`'a ' + 'b'`, `` `a${x} ` + `b` ``)
 * at word boundaries, never inside an escape or a `${}`, so the value is the same string. Left alone: where the
 * concatenation would change what the code means or how it types (a module specifier, a directive, a tagged
 * template, a property name, a literal type, a place that wants a literal type).
 */
import ts from 'typescript';
import { MAX_WIDTH, widthOf } from './line-width.js';
import type { Edit, SourceLines } from './source-lines.js';

export type StringLike = ts.StringLiteral | ts.NoSubstitutionTemplateLiteral | ts.TemplateExpression;

export type Split = { edit: Edit } | { reason: string };

export function isStringLike(node: ts.Node): node is StringLike {
  return ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateExpression(node);
}

/**
 * What a literal in a place that is not a string value is (a directive, a literal type, a module specifier, a
 * property name): such a literal is syntax, not a value to cut or to join.
 */
export function syntaxPlace(node: ts.Node): string | undefined {
  const parent = node.parent;
  if (ts.isExpressionStatement(parent)) return 'a directive';
  if (ts.isLiteralTypeNode(parent) || ts.isImportTypeNode(parent)) return 'a literal type';
  if (
    ts.isImportDeclaration(parent) ||
    ts.isExportDeclaration(parent) ||
    ts.isExternalModuleReference(parent) ||
    ts.isImportAttribute(parent) ||
    ts.isModuleDeclaration(parent)
  ) {
    return 'a module specifier';
  }
  if ('name' in parent && (parent as { name?: ts.Node }).name === node) return 'a property name';
  return undefined;
}

/** Why a literal must stay whole whatever the types say; undefined when its place allows a concatenation. */
export function keepWholeBySyntax(node: StringLike): string | undefined {
  const parent = node.parent;
  if (ts.isTaggedTemplateExpression(parent)) return 'a tagged template';
  const place = syntaxPlace(node);
  if (place) return place;
  if (ts.isCallExpression(parent) && (parent.expression.kind === ts.SyntaxKind.ImportKeyword || isRequire(parent))) {
    return 'a module specifier';
  }
  if (ts.isElementAccessExpression(parent) && parent.argumentExpression === node) return 'a property name';
  if (ts.isComputedPropertyName(parent)) return 'a property name';
  if (ts.isEnumMember(parent) || ts.isCaseClause(parent)) return 'an enum member or a case label';
  if (ts.isBinaryExpression(parent) && NARROWING.has(parent.operatorToken.kind)) return 'a comparison that narrows';
  if (inConstContext(node)) return 'an `as const` value';
  if (ts.findAncestor(parent, (up) => ts.isTemplateSpan(up))) return 'inside a `${}` (prettier keeps it on its line)';
  return undefined;
}

/** Whether the literal's type matters: in a `+` or a `${}` it is a string whatever it is cut into. */
export function typeMatters(node: StringLike): boolean {
  const parent = node.parent;
  if (ts.isBinaryExpression(parent) && parent.operatorToken.kind === ts.SyntaxKind.PlusToken) return false;
  return !ts.isTemplateSpan(parent);
}

/** Why the literal's place wants a literal type (a concatenation is a `string`); undefined when it does not. */
export function keepWholeByType(node: StringLike, checker: ts.TypeChecker): string | undefined {
  const wanted = checker.getContextualType(node);
  if (!wanted) return undefined;
  const string = checker.getStringType();
  // A type parameter takes whatever the argument is: `string` too if its constraint allows it.
  const takesString = (type: ts.Type): boolean => {
    if (!(type.flags & ts.TypeFlags.TypeParameter)) return checker.isTypeAssignableTo(string, type);
    const constraint = checker.getBaseConstraintOfType(type);
    return !constraint || checker.isTypeAssignableTo(string, constraint);
  };
  const options = wanted.isUnion() ? wanted.types : [wanted];
  // The literal's own type, inferred from this very argument for a type parameter, which takes `string` as well.
  if (options.some((type) => isOwnType(type, node))) return undefined;
  return options.some(takesString) ? undefined : 'a place typed by literals';
}

/** Whether `type` is the type the checker gives the literal itself (`'abc'`, or `` `a${string}b` ``). */
function isOwnType(type: ts.Type, node: StringLike): boolean {
  if (!ts.isTemplateExpression(node)) return type.isStringLiteral() && type.value === node.text;
  if (!(type.flags & ts.TypeFlags.TemplateLiteral)) return false;
  const texts = [node.head.text, ...node.templateSpans.map((span) => span.literal.text)];
  return (type as ts.TemplateLiteralType).texts.join('\0') === texts.join('\0');
}

const NARROWING = new Set([
  ts.SyntaxKind.EqualsEqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsEqualsToken,
  ts.SyntaxKind.EqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsToken,
  ts.SyntaxKind.InKeyword,
]);

function isRequire(call: ts.CallExpression): boolean {
  return ts.isIdentifier(call.expression) && call.expression.text === 'require';
}

/** Inside `… as const` (or `<const>`), through objects, arrays and parentheses. */
function inConstContext(node: ts.Node): boolean {
  for (let at: ts.Node = node; ; at = at.parent) {
    const up = at.parent;
    if ((ts.isAsExpression(up) || ts.isTypeAssertionExpression(up)) && up.type.getText() === 'const') return true;
    if (ts.isSatisfiesExpression(up)) return true;
    if (!(
      ts.isPropertyAssignment(up) ||
      ts.isObjectLiteralExpression(up) ||
      ts.isArrayLiteralExpression(up) ||
      ts.isParenthesizedExpression(up) ||
      ts.isConditionalExpression(up)
    )) {
      return false;
    }
  }
}

/** Whether `a + b` in the literal's place needs parentheses to mean the same. */
function needsParentheses(node: ts.Expression): boolean {
  const parent = node.parent;
  if (ts.isCallExpression(parent) || ts.isNewExpression(parent)) return !parent.arguments?.includes(node);
  if (ts.isBinaryExpression(parent)) {
    const op = parent.operatorToken.kind;
    // `x + ('a' + 'b')` is `x + 'a' + 'b'`: x meets a string either way.
    if (op === ts.SyntaxKind.PlusToken) return false;
    return !LOWER_THAN_PLUS.has(op);
  }
  return !(
    ts.isVariableDeclaration(parent) ||
    ts.isPropertyAssignment(parent) ||
    ts.isPropertyDeclaration(parent) ||
    ts.isParameter(parent) ||
    ts.isBindingElement(parent) ||
    ts.isArrayLiteralExpression(parent) ||
    ts.isReturnStatement(parent) ||
    ts.isThrowStatement(parent) ||
    ts.isParenthesizedExpression(parent) ||
    ts.isTemplateSpan(parent) ||
    ts.isConditionalExpression(parent) ||
    (ts.isArrowFunction(parent) && parent.body === node)
  );
}

const LOWER_THAN_PLUS = new Set([
  ts.SyntaxKind.LessThanToken,
  ts.SyntaxKind.GreaterThanToken,
  ts.SyntaxKind.LessThanEqualsToken,
  ts.SyntaxKind.GreaterThanEqualsToken,
  ts.SyntaxKind.EqualsEqualsToken,
  ts.SyntaxKind.EqualsEqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsToken,
  ts.SyntaxKind.ExclamationEqualsEqualsToken,
  ts.SyntaxKind.AmpersandAmpersandToken,
  ts.SyntaxKind.BarBarToken,
  ts.SyntaxKind.QuestionQuestionToken,
  ts.SyntaxKind.EqualsToken,
  ts.SyntaxKind.PlusEqualsToken,
  ts.SyntaxKind.CommaToken,
]);

interface Point {
  pos: number;
  /** A space ends the piece before it; punctuation or a `${}` edge only when no space will do. */
  kind: 'space' | 'other';
}

/** The length of the escape or character at `i` of `text` (an escape is never cut). */
function tokenLength(text: string, i: number): number {
  if (text[i] !== '\\') return (text.codePointAt(i) as number) > 0xffff ? 2 : 1;
  const next = text[i + 1];
  if (next === '\r' && text[i + 2] === '\n') return 3;
  if (next === 'u' && text[i + 2] === '{') return text.indexOf('}', i) - i + 1;
  if (next === 'u') return 6;
  if (next === 'x') return 4;
  if (next !== undefined && /[0-7]/.test(next)) {
    let n = 2;
    while (n < 4 && /[0-7]/.test(text[i + n] ?? '')) n++;
    return n;
  }
  return (text.codePointAt(i + 1) as number) > 0xffff ? 3 : 2;
}

/** Split points inside the text between `from` and `to` (positions in the file). */
function pointsIn(text: string, from: number, to: number, points: Point[]): void {
  for (let i = from; i < to;) {
    const n = tokenLength(text, i);
    const token = text.slice(i, i + n);
    i += n;
    if (i >= to) break;
    if (token === ' ' && text[i] !== ' ') points.push({ pos: i, kind: 'space' });
    else if (/^[,;}/&|]$/.test(token)) points.push({ pos: i, kind: 'other' });
  }
}

/** Every place the literal may be cut, in order. */
function splitPoints(node: StringLike, sf: ts.SourceFile): Point[] {
  const text = sf.text;
  const points: Point[] = [];
  const start = node.getStart(sf);
  if (!ts.isTemplateExpression(node)) {
    pointsIn(text, start + 1, node.end - 1, points);
    return points;
  }
  const head = node.head;
  pointsIn(text, start + 1, head.end - 2, points);
  points.push({ pos: head.end - 2, kind: 'other' });
  for (const span of node.templateSpans) {
    const literal = span.literal;
    const from = literal.getStart(sf) + 1;
    const to = ts.isTemplateTail(literal) ? literal.end - 1 : literal.end - 2;
    points.push({ pos: from, kind: 'other' });
    pointsIn(text, from, to, points);
    if (!ts.isTemplateTail(literal)) points.push({ pos: to, kind: 'other' });
  }
  return points.filter((p) => p.pos > start + 1 && p.pos < node.end - 1);
}

/** The cuts on line `lineNo`: the first as far right as the width allows, the rest every piece-width. */
function cutsOnLine(
  node: StringLike,
  sf: ts.SourceFile,
  lines: SourceLines,
  lineNo: number,
  points: Point[],
): number[] {
  const start = node.getStart(sf);
  const lineStart = lines.start(lineNo);
  const lineEnd = lines.end(lineNo);
  const onLine = points.filter((p) => p.pos > lineStart && p.pos <= lineEnd);
  const indent = widthOf(/^\s*/.exec(lines.line(lineNo))?.[0] ?? '');
  // A piece and its quotes and ` +` where prettier puts the operands of a broken concatenation.
  const pieceWidth = MAX_WIDTH - indent - 8;
  const cuts: number[] = [];
  let from = Math.max(start, lineStart);
  const onThisLine = (to: number): number => widthOf(sf.text.slice(from, Math.min(to, lineEnd)));
  // A long literal's pieces go a piece a line wherever it starts; a short one is cut where its line reaches the width.
  // A template's later lines stay where they are: its cut there is made where the line reaches the width.
  let room = start < lineStart || onThisLine(node.end) <= pieceWidth ? MAX_WIDTH - 3 - lines.column(from) : pieceWidth;
  for (;;) {
    const candidates = onLine.filter(
      (p) => p.pos > from && onThisLine(p.pos) <= room && sf.text.slice(Math.max(from, start + 1), p.pos).trim() !== '',
    );
    const cut =
      candidates.filter((p) => p.kind === 'space').pop() ??
      candidates.pop() ??
      (cuts.length === 0 ? onLine.find((p) => p.pos > from) : undefined);
    if (!cut) break;
    cuts.push(cut.pos);
    from = cut.pos;
    room = pieceWidth;
    if (onThisLine(node.end) + 1 <= pieceWidth) break;
  }
  return cuts;
}

/**
 * The concatenation replacing `node`, cut on each of its lines over the width (prettier then lays the pieces out,
 * a piece a line when they do not fit together).
 */
export function splitLiteral(node: StringLike, sf: ts.SourceFile, lines: SourceLines, lineNo: number): Split {
  const start = node.getStart(sf);
  const points = splitPoints(node, sf);
  const cuts: number[] = [];
  for (let n = lines.lineOf(start); n <= lines.lineOf(node.end); n++) {
    if (n === lineNo || lines.column(lines.end(n)) > MAX_WIDTH) cuts.push(...cutsOnLine(node, sf, lines, n, points));
  }
  if (cuts.length === 0) return { reason: 'a literal with no word boundary to split at' };
  const quote = ts.isStringLiteral(node) ? sf.text[start] : '`';
  const bounds = [start, ...cuts, node.end];
  const pieces = bounds.slice(0, -1).map((pieceStart, i) => {
    const pieceEnd = bounds[i + 1] as number;
    const open = i === 0 ? '' : quote;
    const close = i === bounds.length - 2 ? '' : quote;
    return open + sf.text.slice(pieceStart, pieceEnd) + close;
  });
  // All or nothing: a piece that cannot fit a line (a long `${}`, a long word) is for the hand to fix.
  const indent = widthOf(/^\s*/.exec(lines.line(lineNo))?.[0] ?? '');
  const tooWide = pieces.find((piece) => !piece.includes('\n') && widthOf(piece) > MAX_WIDTH - indent - 6);
  if (tooWide) {
    return {
      reason: tooWide.includes('${') ? 'a `${}` too long for a line' : 'a literal with no word boundary to split at',
    };
  }
  const joined = pieces.join(' + ');
  return { edit: { start, end: node.end, text: needsParentheses(node) ? `(${joined})` : joined } };
}
