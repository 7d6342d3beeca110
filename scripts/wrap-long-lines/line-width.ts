import { readFileSync } from 'node:fs';

/** The widest a source line may be, strings and comments included (ESLint's max-len holds the same figure). */
export const MAX_WIDTH = 120;

/** A line's width as ESLint's max-len counts it: code points, not UTF-16 units. */
export function widthOf(line: string): number {
  let width = 0;
  for (const _ of line) width++;
  return width;
}

/** The 1-based numbers of the lines of `text` wider than `max`. */
export function linesOverWidth(text: string, max = MAX_WIDTH): number[] {
  const over: number[] = [];
  text.split('\n').forEach((line, index) => {
    if (widthOf(line.replace(/\r$/, '')) > max) over.push(index + 1);
  });
  return over;
}

/** `file:line: …` for each line over the width in `files`. */
export function filesLinesOverWidth(files: string[]): string[] {
  return files.flatMap((file) =>
    linesOverWidth(readFileSync(file, 'utf8')).map((line) => `${file}:${line}: over ${MAX_WIDTH} characters`),
  );
}
