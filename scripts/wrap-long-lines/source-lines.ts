import { widthOf } from './line-width.js';

/** A file's text with its line starts, to move between positions, lines and columns. */
export class SourceLines {
  readonly starts: number[] = [0];

  constructor(readonly text: string) {
    for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) this.starts.push(i + 1);
  }

  get count(): number {
    return this.starts.length;
  }

  /** The 0-based line holding `pos`. */
  lineOf(pos: number): number {
    let low = 0;
    let high = this.starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if ((this.starts[mid] as number) <= pos) low = mid;
      else high = mid - 1;
    }
    return low;
  }

  start(line: number): number {
    return this.starts[line] as number;
  }

  /** Where line `line` ends, before its newline (and a carriage return). */
  end(line: number): number {
    const next = line + 1 < this.starts.length ? (this.starts[line + 1] as number) - 1 : this.text.length;
    return next > this.start(line) && this.text.charCodeAt(next - 1) === 13 ? next - 1 : next;
  }

  line(line: number): string {
    return this.text.slice(this.start(line), this.end(line));
  }

  /** The width of line `pos`'s text before `pos` (code points). */
  column(pos: number): number {
    return widthOf(this.text.slice(this.start(this.lineOf(pos)), pos));
  }

  /** The position of the code point at width `column` of line `line` (its end if the line is narrower). */
  positionAt(line: number, column: number): number {
    let pos = this.start(line);
    const end = this.end(line);
    for (let width = 0; width < column && pos < end; width++)
      pos += (this.text.codePointAt(pos) as number) > 0xffff ? 2 : 1;
    return pos;
  }
}

/** A replacement of `text.slice(start, end)`. */
export interface Edit {
  start: number;
  end: number;
  text: string;
}

/** Applies edits that do not overlap; of overlapping ones the first wins (the rest wait for the next round). */
export function applyEdits(text: string, edits: Edit[]): { text: string; applied: number } {
  const kept: Edit[] = [];
  for (const edit of [...edits].sort((a, b) => a.start - b.start || a.end - b.end)) {
    const last = kept[kept.length - 1];
    if (last && edit.start < last.end) continue;
    kept.push(edit);
  }
  let out = text;
  for (const edit of [...kept].reverse()) out = out.slice(0, edit.start) + edit.text + out.slice(edit.end);
  return { text: out, applied: kept.length };
}
