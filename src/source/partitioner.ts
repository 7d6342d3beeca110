/**
 * Splits a filter into journeys that stay under the API's cursor depth (100,000) using free counts only: by
 * `company.headcount` ranges (intersected with the filter's own bounds), cut until each piece is within its size
 * (see `partition`). A single headcount value is cut by a second key, the values of a dictionary (country by
 * default), when it is above its size, and must be when it is over the depth; else PartitionError says so.
 */
import { PartitionError } from './errors.js';
import type { Filter } from './api-terms.js';
import {
  existingCountries,
  headcountBounds,
  withCountries,
  withHeadcount,
  type Partition,
  type PieceRange,
} from './partition-filter.js';

/**
 * Where a split stands (PartitionOptions.onProgress): partitions newly final (`settled`: never cut again), pieces still
 * to cut, counts left.
 */
export interface PartitionProgress {
  settled: Partition[];
  pending: PieceRange[];
  countsLeft: number;
}

export interface PartitionOptions {
  /** Default 90,000 (the API stops journeys at 100,000). */
  maxJourneyRecords?: number;
  /**
   * Pieces above it are cut while `maxCounts` allows; with `journeys`, only those larger than the records after
   * them / journeys. Default: `maxJourneyRecords` (only what is over the depth is cut).
   */
  pieceRecords?: number;
  /** The journeys expected to walk at once ("guided" sizes, large first, small last). */
  journeys?: number;
  /**
   * Every piece above `pieceRecords` is cut while `maxCounts` allows, whatever `journeys` says, a single headcount
   * value by country too: many small partitions, so a re-count finds the few a change touched (refresh on change).
   */
  uniform?: boolean;
  /** The filter's free count when the caller has it (saves one count). */
  total?: number;
  /** Count requests the split may spend (pieces over the journey depth are split regardless). */
  maxCounts?: number;
  /**
   * Told before each round of counts which partitions are final (never cut again: a walk may start them while
   * the rest is cut) and which pieces are still to cut; once more at the end with `pending` empty.
   */
  onProgress?: (progress: PartitionProgress) => void;
  /** Go on with a split cut short (its last progress), instead of starting from the whole filter. */
  resume?: { pending: PieceRange[]; settledCounts: number[] };
  /** Headcount upper bound when the filter has none. Default 10,000,000. */
  maxHeadcount?: number;
  /** Dictionary used to split a single headcount value that is still too deep. Default 'country'. */
  secondKeyDictionary?: string;
  signal?: AbortSignal;
}

export const DEFAULT_MAX_JOURNEY_RECORDS = 90_000;
const DEFAULT_MAX_HEADCOUNT = 10_000_000;
/** Most ranges one piece is cut into at once when planning many small partitions. */
const MAX_WAYS = 8;
/**
 * Ranges the whole filter is cut into by the first round, at least: a few geometric ranges of a wide headcount range
 * are too uneven for any to be final at once (skewed data), so a walk streamed from the split would wait a second
 * round of counts for its first partition; 32 make some final at once, for a few more counts (within the budget,
 * which bounds the ways).
 */
const FIRST_WAYS = 32;
/**
 * With many journeys the first round cuts in up to 4 ranges per journey: a piece is final when it is no larger than
 * the records after it shared by the journeys, so of w even ranges only the first w - J are final at once, and
 * geometric ranges over the whole headcount scale leave many empty; too few ranges and every journey waits a second
 * round of counts for its first page. Never more than half the budget: later rounds must still cut what stays too
 * large (a single headcount value by country), else that piece walks alone at the end of the run.
 */
const FIRST_WAYS_PER_JOURNEY = 4;
/** Bound on the first round's parallel counts whatever the journeys and the budget (a large package's journeys x 4). */
const MAX_FIRST_WAYS = 256;

export interface PartitionDeps {
  count(filter: Filter): Promise<number>;
  dictionary(name: string): Promise<string[]>;
}

interface Piece extends PieceRange {
  /** Never cut again (see `partition`). */
  final?: boolean;
  /** A country cut of this single headcount value would not cover all its records (some have none listed). */
  uncuttable?: boolean;
}

export class Partitioner {
  private readonly cache = new Map<string, Promise<number>>();

  constructor(private readonly deps: PartitionDeps) {}

  private count(filter: Filter): Promise<number> {
    const key = JSON.stringify(filter);
    let hit = this.cache.get(key);
    if (!hit) {
      hit = this.deps.count(filter);
      this.cache.set(key, hit);
      hit.catch(() => this.cache.delete(key));
    }
    return hit;
  }

  /**
   * Partitions for a walk that takes the next partition whenever a journey is free, largest first ("guided"
   * sizes): a piece may stay as large as the records walked after it, shared by `journeys`, so the journeys are
   * busy with later pieces while it ends, and the last pieces are small (down to about `pieceRecords`). Pieces
   * that break the rule are cut (the largest first, up to 8 ways at once, counted in parallel) until none does
   * or `maxCounts` counts are spent; pieces over the journey depth are always cut (depth is a hard limit).
   * Few large pieces where they do not hurt: each partition ends with a partial page, a search request that
   * brings fewer than `limit` records. Without `journeys`, every piece above `pieceRecords` is cut; without
   * `pieceRecords`, every piece over the journey depth.
   */
  async partition(filter: Filter, options: PartitionOptions = {}): Promise<Partition[]> {
    const maxJourney = options.maxJourneyRecords ?? DEFAULT_MAX_JOURNEY_RECORDS;
    const target = Math.max(1, Math.min(maxJourney, Math.floor(options.pieceRecords ?? maxJourney)));
    let budget = options.maxCounts ?? Number.POSITIVE_INFINITY;
    const bounds = headcountBounds(filter);
    const lo = bounds.gte ?? 0;
    const hi = bounds.lte ?? options.maxHeadcount ?? DEFAULT_MAX_HEADCOUNT;
    const openTop = bounds.lte === undefined;
    const total = options.total ?? (await this.count(filter));
    const resume = options.resume;
    if (!resume && total <= target) {
      const whole = { filter, count: total, headcount: { gte: lo, lte: hi } };
      options.onProgress?.({ settled: [whole], pending: [], countsLeft: budget });
      return [whole];
    }
    const journeys = options.journeys;
    const toPartition = (piece: Piece): Partition => {
      const top = openTop && piece.lte === hi ? null : piece.lte;
      const range = withHeadcount(filter, piece.gte, top);
      const headcount = { gte: piece.gte, lte: piece.lte };
      return piece.countries
        ? { filter: withCountries(range, piece.countries), count: piece.count, headcount, countries: piece.countries }
        : { filter: range, count: piece.count, headcount };
    };
    // The countries a single headcount value can be cut by (the filter's own, else the dictionary's), read once.
    let countries: Promise<string[]> | undefined;
    const countryList = (piece: Piece): Promise<string[]> => {
      if (piece.countries) return Promise.resolve(piece.countries);
      countries ??= this.deps.dictionary(options.secondKeyDictionary ?? 'country').then((all) => {
        const own = existingCountries(filter);
        return own ? all.filter((v) => own.includes(v)) : all;
      });
      return countries;
    };
    // Final pieces stay in the list (they size the pieces before them) but are never cut again; a resumed split
    // starts from the pieces the first attempt had not made final, next to the records of those it had.
    let pieces: Piece[] = resume
      ? [
          ...resume.settledCounts.map((count) => ({ gte: 0, lte: -1, count, final: true })),
          ...resume.pending.map((p) => ({ ...p })),
        ]
      : [{ gte: lo, lte: hi, count: total }];
    const finals: Partition[] = [];
    let now: Partition[];
    let first = !resume;
    const firstWays = Math.max(
      FIRST_WAYS,
      Math.min(MAX_FIRST_WAYS, FIRST_WAYS_PER_JOURNEY * (journeys ?? 0), Math.floor(budget / 2)),
    );
    for (;;) {
      pieces.sort((x, y) => y.count - x.count);
      // The largest size each piece may keep: the records walked after it (largest first) shared by the journeys.
      let after = total;
      const cuts: { piece: Piece; ways: number; byCountry: boolean }[] = [];
      now = [];
      for (const p of pieces) {
        after -= p.count;
        if (p.final) continue;
        const overDepth = p.count > maxJourney;
        const allowed = Math.min(
          maxJourney,
          Math.max(target, journeys === undefined || options.uniform ? target : Math.floor(after / journeys)),
        );
        // Final for good: `after` only grows as larger pieces are cut (their parts may sort after this one) and
        // the budget only shrinks, so a piece within its size, or beyond the budget, is never cut later. One
        // headcount value over the depth waits for the split by country at the end.
        const single = p.gte >= p.lte;
        // One headcount value (skewed data: a log-uniform index has many companies of 1 employee) cannot be cut by
        // headcount. With guided sizes, above its size it is cut by country, counting every group (the groups must
        // cover it: records without a listed country would be lost), so its journey does not walk on alone long
        // after the others ended. Without `journeys`, large single values simply go first.
        const countryCut =
          (journeys !== undefined || options.uniform === true) &&
          single &&
          !overDepth &&
          p.count > allowed &&
          !p.uncuttable &&
          (p.countries?.length ?? 2) > 1 &&
          budget >= 2;
        if (single ? !overDepth && !countryCut : p.count <= allowed || (!overDepth && budget < 1)) {
          p.final = true;
          if (p.count > 0 || options.uniform) now.push(toPartition(p));
          continue;
        }
        if (countryCut) {
          const ways = Math.max(2, Math.min(MAX_WAYS, Math.ceil(p.count / allowed), budget));
          budget -= ways;
          cuts.push({ piece: p, ways, byCountry: true });
          continue;
        }
        if (single) continue;
        // A piece far above its size is cut in up to 8 at once: fewer rounds of counts before the first page, at
        // the price of a few more counts than halving. Over the depth: always; else as far as the budget goes.
        const k = Math.max(2, Math.min(first ? firstWays : MAX_WAYS, Math.ceil(p.count / allowed), p.lte - p.gte + 1));
        const ways = overDepth ? k : Math.max(2, Math.min(k, budget + 1));
        budget -= ways - 1;
        cuts.push({ piece: p, ways, byCountry: false });
      }
      finals.push(...now);
      if (cuts.length === 0) break;
      // Before the round's counts: what is final can be walked while the rest is cut (the pieces being cut are
      // still pending, with the budget before their counts: a split cut short repeats this round).
      options.onProgress?.({
        settled: now,
        pending: pieces
          .filter((p) => !p.final)
          .map(({ gte, lte, count, countries: c }) => ({ gte, lte, count, ...(c ? { countries: c } : {}) })),
        countsLeft: budget + cuts.reduce((n, c) => n + (c.byCountry ? c.ways : c.ways - 1), 0),
      });
      first = false;
      const cutPieces = new Set(cuts.map((c) => c.piece));
      const split = await Promise.all(
        cuts.map(async (c) =>
          c.byCountry
            ? this.cutByCountry(filter, c.piece, c.ways, await countryList(c.piece), options.uniform === true)
            : this.cut(filter, c.piece, c.ways),
        ),
      );
      pieces = [...pieces.filter((p) => !cutPieces.has(p)), ...split.flat()];
    }
    const byCountry: Partition[] = [];
    for (const piece of pieces) {
      if (piece.final || piece.count === 0) continue;
      byCountry.push(
        ...(await this.splitByCountry(
          filter,
          piece.gte,
          piece.count,
          maxJourney,
          options.secondKeyDictionary ?? 'country',
        )),
      );
    }
    finals.push(...byCountry);
    options.onProgress?.({ settled: [...now, ...byCountry], pending: [], countsLeft: Math.max(0, budget) });
    return finals.sort((a, b) => b.count - a.count);
  }

  /**
   * Cuts one headcount value in `k` groups of countries (round robin over the list, so the few large countries of
   * a skewed index fall in different groups), counting every group in parallel. If the groups do not cover the
   * piece's count (records without a listed country), the piece stays whole.
   */
  private async cutByCountry(
    filter: Filter,
    piece: Piece,
    k: number,
    countries: string[],
    uniform: boolean,
  ): Promise<Piece[]> {
    const groups = Array.from({ length: Math.min(k, countries.length) }, (_, g) =>
      countries.filter((_, i) => i % k === g),
    );
    const single = withHeadcount(filter, piece.gte, piece.lte);
    const counts = await Promise.all(groups.map((group) => this.count(withCountries(single, group))));
    // Uniform partitions must tile the search exactly (a re-count checks they add up to it): no record in two groups.
    const covered = counts.reduce((n, c) => n + c, 0);
    if (covered < piece.count || (uniform && covered !== piece.count)) return [{ ...piece, uncuttable: true }];
    return groups.map((group, i) => ({ gte: piece.gte, lte: piece.lte, count: counts[i] as number, countries: group }));
  }

  /** Cuts `piece` in `k` ranges (geometric cuts on wide ranges), counting k - 1 prefixes in parallel. */
  private async cut(filter: Filter, piece: Piece, k: number): Promise<Piece[]> {
    const cuts: number[] = [];
    let from = piece.gte;
    for (let i = 1; i < k; i++) {
      const remaining = k - i + 1;
      // the next cut splits [from, lte] into 1 : remaining - 1 shares: geometrically on wide ranges (headcounts are
      // heavily skewed), arithmetically otherwise
      const a = from;
      const b = piece.lte;
      const wide = b > 4 * (a + 1);
      const at = wide
        ? Math.floor((a + 1) * ((b + 1) / (a + 1)) ** (1 / remaining)) - 1
        : Math.floor(a + (b - a) / remaining);
      const c = Math.min(Math.max(at, from), b - 1);
      if (cuts.length > 0 && c <= (cuts[cuts.length - 1] as number)) break;
      cuts.push(c);
      from = c + 1;
      if (from > b) break;
    }
    const prefixes = await Promise.all(cuts.map((c) => this.count(withHeadcount(filter, piece.gte, c))));
    const pieces: Piece[] = [];
    let lo = piece.gte;
    let before = 0;
    cuts.forEach((c, i) => {
      const upTo = Math.max(before, prefixes[i] as number);
      pieces.push({ gte: lo, lte: c, count: upTo - before });
      before = upTo;
      lo = c + 1;
    });
    // The top piece of an open filter also holds records above `lte`: its count is the piece's total minus the rest.
    pieces.push({ gte: lo, lte: piece.lte, count: Math.max(0, piece.count - before) });
    return pieces;
  }

  private async splitByCountry(
    filter: Filter,
    value: number,
    count: number,
    maxJourney: number,
    dictionary: string,
  ): Promise<Partition[]> {
    const single = withHeadcount(filter, value, value);
    const allowed = existingCountries(filter);
    const values = (await this.deps.dictionary(dictionary)).filter((v) => !allowed || allowed.includes(v));
    const counts = await Promise.all(
      values.map(async (v) => ({ value: v, count: await this.count(withCountries(single, [v])) })),
    );
    const covered = counts.reduce((sum, c) => sum + c.count, 0);
    const tooDeep = counts.find((c) => c.count > maxJourney);
    if (tooDeep || covered < count) {
      throw new PartitionError(
        tooDeep
          ? `headcount ${value} in ${tooDeep.value} alone matches ${tooDeep.count} records, over the journey ` +
              `depth ${maxJourney}; narrow the filter`
          : `headcount ${value} matches ${count} records and splitting it by ${dictionary} covers ` +
              `only ${covered}; narrow the filter`,
        { headcount: value, count, maxJourneyRecords: maxJourney },
      );
    }
    const partitions: Partition[] = [];
    let bucket: string[] = [];
    let bucketCount = 0;
    const flush = (): void => {
      if (bucket.length === 0) return;
      partitions.push({
        filter: withCountries(single, bucket),
        count: bucketCount,
        headcount: { gte: value, lte: value },
        countries: bucket,
      });
      bucket = [];
      bucketCount = 0;
    };
    const target = Math.ceil(count / Math.ceil(count / maxJourney));
    for (const c of counts.filter((x) => x.count > 0)) {
      if (bucketCount + c.count > maxJourney || (bucketCount >= target && bucket.length > 0)) flush();
      bucket.push(c.value);
      bucketCount += c.count;
    }
    flush();
    return partitions;
  }
}
