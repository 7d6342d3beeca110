/**
 * The proof that a rewrite changed no behaviour: a file's program with comments and layout dropped and adjacent
 * string pieces joined (`'a ' + 'b'` → `"a b"`, `` `x${y} ` + `z` `` → `` `x${y} z` ``) prints the same before and
 * after. Types are printed too, so a changed type shows. Lua: the code without comments, whitespace collapsed.
 */
import ts from 'typescript';
import { syntaxPlace } from './split-literal.js';

type Part = { text: string } | { expr: ts.Expression };

/** The parts of a string literal or an untagged template, or undefined for anything else. */
function partsOf(node: ts.Expression): Part[] | undefined {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return [{ text: node.text }];
  if (ts.isTemplateExpression(node)) {
    const parts: Part[] = [{ text: node.head.text }];
    for (const span of node.templateSpans) parts.push({ expr: span.expression }, { text: span.literal.text });
    return parts;
  }
  return undefined;
}

/** One literal (a string, or a template when it has substitutions) holding `parts`, texts merged. */
function literalOf(parts: Part[]): ts.Expression {
  const merged: Part[] = [];
  for (const part of parts) {
    const last = merged[merged.length - 1];
    if ('text' in part && last && 'text' in last) merged[merged.length - 1] = { text: last.text + part.text };
    else merged.push(part);
  }
  if (merged.every((p) => 'text' in p)) return ts.factory.createStringLiteral(merged.map((p) => p.text).join(''));
  const texts: string[] = [];
  const exprs: ts.Expression[] = [];
  let text = '';
  for (const part of merged) {
    if ('text' in part) text += part.text;
    else {
      texts.push(text);
      exprs.push(part.expr);
      text = '';
    }
  }
  texts.push(text);
  const spans = exprs.map((expr, i) =>
    ts.factory.createTemplateSpan(
      expr,
      i === exprs.length - 1
        ? ts.factory.createTemplateTail(texts[i + 1] as string)
        : ts.factory.createTemplateMiddle(texts[i + 1] as string),
    ),
  );
  return ts.factory.createTemplateExpression(ts.factory.createTemplateHead(texts[0] as string), spans);
}

const joinPieces: ts.TransformerFactory<ts.SourceFile> = (context) => {
  const visit = (node: ts.Node): ts.Node => {
    // String.raw`…` is its raw text.
    if (isStringRaw(node)) return ts.factory.createStringLiteral(node.template.rawText ?? '');
    // A tagged template reads its raw text: it stays as written.
    if (ts.isTaggedTemplateExpression(node)) {
      return ts.factory.updateTaggedTemplateExpression(
        node,
        ts.visitNode(node.tag, visit) as ts.LeftHandSideExpression,
        node.typeArguments,
        ts.isTemplateExpression(node.template)
          ? ts.factory.updateTemplateExpression(
              node.template,
              node.template.head,
              node.template.templateSpans.map((s) =>
                ts.factory.updateTemplateSpan(s, ts.visitNode(s.expression, visit) as ts.Expression, s.literal),
              ),
            )
          : node.template,
      );
    }
    const visited = ts.visitEachChild(node, visit, context);
    if (ts.isParenthesizedExpression(visited) && ts.isStringLiteral(visited.expression)) return visited.expression;
    if (ts.isParenthesizedExpression(visited) && ts.isTemplateExpression(visited.expression)) return visited.expression;
    if (ts.isBinaryExpression(visited) && visited.operatorToken.kind === ts.SyntaxKind.PlusToken) {
      const right = partsOf(visited.right);
      if (!right) return visited;
      const left = partsOf(visited.left);
      // `a + b` of two strings is one string; `(x + 'a') + 'b'` is `x + 'ab'` (x meets a string either way).
      if (left) return literalOf([...left, ...right]);
      const inner = visited.left;
      if (ts.isBinaryExpression(inner) && inner.operatorToken.kind === ts.SyntaxKind.PlusToken) {
        const innerRight = partsOf(inner.right);
        if (innerRight)
          return ts.factory.updateBinaryExpression(
            visited,
            inner.left,
            visited.operatorToken,
            literalOf([...innerRight, ...right]),
          );
      }
      return visited;
    }
    // new RegExp('source', 'flags') is /source/flags.
    const regex = regexOf(visited);
    if (regex) return regex;
    if (isPlainLiteral(node)) return literalOf(partsOf(visited as ts.Expression) as Part[]);
    return visited;
  };
  return (sf) => ts.visitNode(sf, visit) as ts.SourceFile;
};

function isStringRaw(
  node: ts.Node,
): node is ts.TaggedTemplateExpression & { template: ts.NoSubstitutionTemplateLiteral } {
  return (
    ts.isTaggedTemplateExpression(node) &&
    ts.isNoSubstitutionTemplateLiteral(node.template) &&
    node.tag.getText() === 'String.raw'
  );
}

function regexOf(node: ts.Node): ts.Expression | undefined {
  if (!ts.isNewExpression(node) || !ts.isIdentifier(node.expression) || node.expression.text !== 'RegExp') return;
  const [source, flags, ...rest] = node.arguments ?? [];
  if (!source || !ts.isStringLiteral(source) || rest.length > 0) return undefined;
  if (flags && !ts.isStringLiteral(flags)) return undefined;
  return ts.factory.createRegularExpressionLiteral(`/${source.text}/${flags?.text ?? ''}`);
}

function isPlainLiteral(node: ts.Node): boolean {
  if (!(ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateExpression(node))) {
    return false;
  }
  // Literals that are not string values (names, module specifiers, literal types) keep their own node.
  return node.parent !== undefined && syntaxPlace(node) === undefined;
}

function scriptKind(fileName: string): ts.ScriptKind {
  return /\.[mc]?js$/.test(fileName) ? ts.ScriptKind.JS : ts.ScriptKind.TS;
}

/** Flags that change what a node means (`let` or `const`, `a?.b`, `declare global`). */
const MEANINGFUL_FLAGS =
  ts.NodeFlags.BlockScoped |
  ts.NodeFlags.OptionalChain |
  ts.NodeFlags.NestedNamespace |
  ts.NodeFlags.GlobalAugmentation;

/** The tree as text: each node's kind, meaningful flags, literal or name text and children, nothing of its layout. */
function treeText(node: ts.Node, out: string[]): void {
  out.push(`(${ts.SyntaxKind[node.kind]}`);
  const flags = node.flags & MEANINGFUL_FLAGS;
  if (flags) out.push(`#${flags}`);
  if (ts.isIdentifier(node) || ts.isPrivateIdentifier(node)) out.push(` ${node.text}`);
  else if (ts.isLiteralExpression(node) || ts.isTemplateLiteralToken(node) || ts.isJsxText(node)) {
    out.push(` ${JSON.stringify(node.text)}`);
    // A tagged template's pieces keep their source (the joined literals are rebuilt without it).
    const raw = (node as { rawText?: string }).rawText;
    if (raw !== undefined) out.push(` raw ${JSON.stringify(raw)}`);
  }
  ts.forEachChild(node, (child) => treeText(child, out));
  out.push(')\n');
}

/** What a script does, as text: equal for two versions of a file that differ only in layout, comments and cuts. */
export function behaviourOf(fileName: string, text: string): string {
  if (fileName.endsWith('.lua')) return luaCode(text);
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, scriptKind(fileName));
  const diagnostics = (sf as unknown as { parseDiagnostics: ts.Diagnostic[] }).parseDiagnostics;
  if (diagnostics.length > 0) {
    return `syntax error: ${ts.flattenDiagnosticMessageText(diagnostics[0]?.messageText, '\n')}`;
  }
  const joined = ts.transform(sf, [joinPieces]).transformed[0] as ts.SourceFile;
  const out: string[] = [];
  treeText(joined, out);
  return out.join('');
}

/** Lua code with comments dropped and whitespace collapsed (strings are kept as they are). */
function luaCode(text: string): string {
  let out = '';
  for (let i = 0; i < text.length;) {
    const rest = text.slice(i);
    const quoted = /^(["'])(?:\\.|(?!\1)[^\\\n])*\1/.exec(rest) ?? /^\[(=*)\[[\s\S]*?\]\1\]/.exec(rest);
    if (quoted) {
      out += quoted[0];
      i += quoted[0].length;
      continue;
    }
    const comment = /^--\[(=*)\[[\s\S]*?\]\1\]/.exec(rest) ?? /^--[^\n]*/.exec(rest);
    const space = /^\s+/.exec(rest);
    if (comment || space) {
      if (!out.endsWith(' ')) out += ' ';
      i += (comment ?? space)?.[0].length as number;
      continue;
    }
    out += text[i];
    i++;
  }
  return out.trim();
}
