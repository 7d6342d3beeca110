/**
 * The rounds of a wrap over a set of files held in memory: plan each file's edits, apply them, run prettier, again
 * while anything is over the width and something changed. Each changed file is then proven to behave as before (or
 * put back), and the lines still over the width are listed with why.
 */
import * as prettier from 'prettier';
import ts from 'typescript';
import { linesOverWidth } from './line-width.js';
import { planLuaEdits, planScriptEdits, type Plan } from './plan-edits.js';
import { NeedsChecker, ProjectTypes } from './project-types.js';
import { behaviourOf } from './same-behaviour.js';
import { applyEdits } from './source-lines.js';

const MAX_ROUNDS = 8;

export interface WrapResult {
  /** Each file's text after the wrap (the original if it could not be rewritten safely). */
  texts: Map<string, string>;
  /** `file:line: why` for each line still over the width, and `file: why` for each file put back. */
  left: string[];
}

async function formatted(file: string, text: string): Promise<string> {
  const info = await prettier.getFileInfo(file, { ignorePath: '.prettierignore' });
  if (info.ignored || !info.inferredParser) return text;
  const options = (await prettier.resolveConfig(file)) ?? {};
  return prettier.format(text, { ...options, filepath: file });
}

/** The round's edits for `file`; the program is built only if a literal's place needs the checker. */
function plan(file: string, text: string, types: ProjectTypes, guess = false): Plan {
  if (file.endsWith('.lua')) return planLuaEdits(text);
  const kind = /\.[mc]?js$/.test(file) ? ts.ScriptKind.JS : ts.ScriptKind.TS;
  try {
    const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
    return planScriptEdits(sf, types.keepWhole(file, undefined, guess));
  } catch (error) {
    if (!(error instanceof NeedsChecker)) throw error;
    const { sf, checker } = types.at(file);
    return planScriptEdits(sf, types.keepWhole(file, checker));
  }
}

/** The first line where two printed programs differ, both versions, shortened. */
function firstDifference(before: string, after: string): string {
  const a = before.split('\n');
  const b = after.split('\n');
  const at = a.findIndex((line, i) => line !== b[i]);
  const show = (line: string | undefined) => JSON.stringify((line ?? '').trim().slice(0, 100));
  return `was ${show(a[at])}, would be ${show(b[at])}`;
}

/** Wraps `originals` (file path relative to the working directory → text). */
export async function wrapTexts(originals: Map<string, string>): Promise<WrapResult> {
  const texts = new Map(originals);
  const types = new ProjectTypes(texts);
  const failed = new Map<string, string>();
  let pending = [...originals.keys()].filter((file) => linesOverWidth(originals.get(file) as string).length > 0);
  for (let round = 1; round <= MAX_ROUNDS && pending.length > 0; round++) {
    const changed: string[] = [];
    for (const file of pending) {
      const text = texts.get(file) as string;
      const { edits } = plan(file, text, types);
      if (edits.length === 0) continue;
      try {
        const next = await formatted(file, applyEdits(text, edits).text);
        if (next === text) continue;
        texts.set(file, next);
        changed.push(file);
      } catch (error) {
        failed.set(file, `prettier could not read the rewrite: ${String(error).split('\n')[0]}`);
        pending = pending.filter((f) => f !== file);
      }
    }
    types.invalidate();
    pending = changed.filter((file) => !failed.has(file) && linesOverWidth(texts.get(file) as string).length > 0);
  }
  const left: string[] = [];
  for (const [file, before] of originals) {
    const after = texts.get(file) as string;
    if (failed.has(file)) texts.set(file, before);
    else if (after !== before) {
      const was = behaviourOf(file, before);
      const is = behaviourOf(file, after);
      if (was !== is) {
        failed.set(file, `the rewrite would change what the code does (${firstDifference(was, is)}): left as it was`);
        texts.set(file, before);
      }
    }
  }
  types.invalidate();
  for (const [file, why] of failed) left.push(`${file}: ${why}`);
  for (const [file, text] of texts) {
    const over = linesOverWidth(text);
    if (over.length === 0) continue;
    const reasons = new Map(plan(file, text, types, true).unwrapped.map((u) => [u.line, u.reason]));
    for (const line of over) left.push(`${file}:${line}: ${reasons.get(line) ?? 'still over the width'}`);
  }
  return { texts, left };
}
