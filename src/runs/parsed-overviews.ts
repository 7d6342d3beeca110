/**
 * Overviews parsed once and kept by search, for a process that reads them again and again (the dashboard's /runs):
 * a value whose text has not changed is not parsed again, so a render neither pays the parse nor makes a new set of
 * objects that the garbage collector must copy while the render still holds them (a pause of the whole process). The
 * objects are shared between renders: read them, never change them.
 */
import type { KeptOverviews, RunOverview } from './run-overview.js';

export class ParsedOverviews implements KeptOverviews {
  private readonly bySearch = new Map<string, { text: string; overview: RunOverview }>();

  /** The overview of `search` stored as `text`: the kept one while the text is the same. */
  parse(search: string, text: string): RunOverview {
    const kept = this.bySearch.get(search);
    if (kept?.text === text) return kept.overview;
    const overview = JSON.parse(text) as RunOverview;
    this.bySearch.set(search, { text, overview });
    return overview;
  }

  /** Forgets the searches not in `searches` (removed from the config since). */
  keepOnly(searches: readonly string[]): void {
    if (this.bySearch.size <= searches.length) return;
    const wanted = new Set(searches);
    for (const search of this.bySearch.keys()) if (!wanted.has(search)) this.bySearch.delete(search);
  }

  /** Searches kept. */
  get size(): number {
    return this.bySearch.size;
  }
}
