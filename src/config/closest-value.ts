/** The known value a mistyped one most likely meant, for "did you mean ...?"; undefined when none is close. */
import { distance } from 'fastest-levenshtein';

export function closestValue(typed: string, known: Iterable<string>): string | undefined {
  const wanted = typed.toLowerCase();
  // Close enough to be a typo: a few edits, none for short codes (every two-letter code is one edit from many).
  const allowed = Math.min(3, Math.floor(wanted.length / 4));
  let best: { value: string; edits: number } | undefined;
  for (const value of known) {
    const edits = distance(wanted, value.toLowerCase());
    if (edits <= allowed && (!best || edits < best.edits)) best = { value, edits };
  }
  return best?.value;
}
