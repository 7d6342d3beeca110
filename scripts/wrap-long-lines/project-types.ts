/**
 * The type checker's say on splitting a literal (a concatenation is a `string`, never a literal type). Building the
 * project's program is the slow part of a run, so it is built only when a literal's place needs it, and each
 * literal's answer is kept for the later rounds.
 */
import { relative, resolve } from 'node:path';
import ts from 'typescript';
import type { KeepWhole } from './plan-edits.js';
import { keepWholeBySyntax, keepWholeByType, typeMatters, type StringLike } from './split-literal.js';

/** Asked for when a literal needs the checker and none was given: plan the file again with one. */
export class NeedsChecker extends Error {}

export class ProjectTypes {
  private program: ts.Program | undefined;
  private readonly parsed = new Map<string, ts.SourceFile>();
  private readonly config: ts.ParsedCommandLine | undefined;
  /** A literal's answer by its file, place and text, so a later round need not build the program again. */
  private readonly answers = new Map<string, string | null>();

  /** `texts`: the files being rewritten (paths relative to the working directory), as they are now. */
  constructor(private readonly texts: Map<string, string>) {
    const path = ts.findConfigFile(process.cwd(), ts.sys.fileExists);
    this.config = path
      ? ts.getParsedCommandLineOfConfigFile(path, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} })
      : undefined;
  }

  /** Whether `file` is in the project's program (otherwise no types: nothing to break). */
  covers(file: string): boolean {
    return this.config?.fileNames.includes(resolve(file)) ?? false;
  }

  /** The tree of `file` in a program over the current texts, and that program's checker. */
  at(file: string): { sf: ts.SourceFile; checker: ts.TypeChecker } {
    this.program ??= this.build();
    const sf = this.program.getSourceFile(resolve(file));
    if (!sf) throw new Error(`${file}: not in the program of tsconfig.json`);
    return { sf, checker: this.program.getTypeChecker() };
  }

  /** The texts changed: the next `at` builds a new program. */
  invalidate(): void {
    this.program = undefined;
  }

  /**
   * The decision for the literals of `file`: the place's syntax first, then a kept answer, then the checker if
   * given; without one, `NeedsChecker` is thrown (or, when `guess` is set, the literal is reported as undecided).
   */
  keepWhole(file: string, checker: ts.TypeChecker | undefined, guess = false): KeepWhole {
    return (node: StringLike) => {
      const bySyntax = keepWholeBySyntax(node);
      if (bySyntax || !typeMatters(node) || !this.covers(file)) return bySyntax;
      const key = `${file}\0${ts.SyntaxKind[node.parent.kind]}\0${node.getText()}`;
      const known = this.answers.get(key);
      if (known !== undefined) return known ?? undefined;
      if (!checker) {
        if (guess) return 'a literal whose type was not checked';
        throw new NeedsChecker();
      }
      const answer = keepWholeByType(node, checker);
      this.answers.set(key, answer ?? null);
      return answer;
    };
  }

  private build(): ts.Program {
    const config = this.config as ts.ParsedCommandLine;
    const host = ts.createCompilerHost(config.options, true);
    const read = host.getSourceFile.bind(host);
    host.getSourceFile = (fileName, languageVersion) => {
      const text = this.texts.get(relative(process.cwd(), fileName));
      const cached = this.parsed.get(fileName);
      if (cached && (text === undefined || cached.text === text)) return cached;
      const sf =
        text === undefined
          ? read(fileName, languageVersion)
          : ts.createSourceFile(fileName, text, languageVersion, true);
      if (sf) this.parsed.set(fileName, sf);
      return sf;
    };
    return ts.createProgram({ rootNames: config.fileNames, options: config.options, host, oldProgram: this.program });
  }
}
