/**
 * One page of a contacts journey that reveals each person once (see reveal-planner.ts for the strategy). A run of
 * persons to reveal is fetched by its offset in the journey's walk (same body, no sort: the walk's order), which
 * costs exactly its persons; the answer's ids are checked, and on any difference (or an offset refused or beyond
 * 10,000) the journey positions a re-sent cursor instead. The API binds a cursor to the body only, so a cursor may
 * be sent again with another `limit` and `view` (docs/api-assumptions.md). If the API refuses a re-sent cursor
 * (invalid_cursor), the journey falls back to revealing whole pages for the rest of its walk; the persons of that
 * page left unrevealed are counted as missed (the next run reveals them).
 */
import { joinUrl } from './api-paths.js';
import { BudgetStopError, InvalidCursorError, SourceValidationError } from './errors.js';
import { fetchPage, MAX_OFFSET, type CursorHold, type JourneyContext, type PageBody } from './page-request.js';
import { decideReveals } from './reveal-decision.js';
import { DIRECT_SHARE, revealRuns } from './reveal-planner.js';
import type { RevealStore } from './reveal-store.js';
import type { Suppression } from './suppression.js';
import { recordId } from './run-dedup.js';
import type { Entity } from './api-terms.js';

/** Per-journey state of the reveal strategy. */
export interface JourneyReveal {
  store: RevealStore;
  /** Share of unrevealed persons expected on the next page (from the previous page, or the plan). */
  predicted: number;
  /** The API refused a re-sent cursor: whole pages are revealed from now on. */
  fallback: boolean;
  /** Runs are revealed by offset while the API's offset answers match the walk (cleared on the first mismatch). */
  offsets: boolean;
}

export interface RevealPageRequest {
  entity: Entity;
  mode: 'cursor' | 'offset';
  /** Position of the page: its cursor (null = first page) or offset. */
  cursor: string | null;
  offset: number;
  /** Cursor mode: records of this walk before the page (its offset), null when unknown (a later sweep pass). */
  position: number | null;
  bodyBytes: string;
  view: string[];
  wanted: number;
  runId: string;
  idField: string;
  fetched: number;
  signal: AbortSignal | undefined;
  /** Persons it decides on before their reveal are not revealed (and a page is walked before it is revealed). */
  suppression?: Suppression;
  /** The journey's page (walked or revealed whole) is held to a page size (page-request.ts). */
  hold?: CursorHold;
}

export interface RevealPageResult {
  /** The walked page, with revealed persons replaced by their contacts version. */
  body: PageBody;
  /** Records the walk request returned (the journey's position moves by this many). */
  walked: number;
  tokens: number;
  credits: number;
  /** Ids revealed on this page: mark them once the CRM holds them. */
  revealed: string[];
  /** Persons of this page by reveal day (today for those revealed): the run's tally, booked with the marks. */
  tally: Map<number, number>;
  /** Persons passed by without a reveal (revealed earlier and still fresh). */
  skipped: number;
  /** Unrevealed persons left unrevealed after a refused re-sent cursor. */
  missed: number;
  /** A credit cap stopped the page: keep only the first `keep` records, then throw `stop`. */
  stop?: { keep: number; error: BudgetStopError };
}

function pageUrl(ctx: JourneyContext, req: RevealPageRequest, position: string | number | null, view: string[]): URL {
  const url = joinUrl(ctx.baseUrl, ctx.paths.search[req.entity]);
  if (typeof position === 'number') url.searchParams.set('offset', String(position));
  else if (position !== null) url.searchParams.set('cursor', position);
  if (view.length > 0) url.searchParams.set('view', view.join(','));
  return url;
}

const nextCursorOf = (body: PageBody): string | null =>
  typeof body.page.nextCursor === 'string' && body.page.nextCursor.length > 0 ? body.page.nextCursor : null;

/** The walk ended before a run could be reached (live index shrank): the rest of the page stays unrevealed. */
class WalkEnded extends Error {}

/**
 * A re-sent cursor served more records than its `limit`: the API holds a journey to the size it opened with, so
 * cursors cannot be positioned; whole pages are revealed for the rest of the journey (what this answer paid for is
 * delivered, the rest of the page is left to the next run).
 */
function heldToItsSize(ctx: JourneyContext, jr: JourneyReveal, req: RevealPageRequest, answer: PageBody): void {
  if (answer.data.length <= (answer.limitSent ?? Number.POSITIVE_INFINITY)) return;
  jr.fallback = true;
  ctx.stats.revealFallbacks += 1;
  ctx.logger.warn(
    { entity: req.entity, fetched: req.fetched },
    'the API served a re-sent cursor at its first page size: revealing whole pages for the rest of this journey',
  );
  throw new WalkEnded('the API holds the page size');
}

export async function revealPage(
  ctx: JourneyContext,
  jr: JourneyReveal,
  req: RevealPageRequest,
): Promise<RevealPageResult> {
  const start: string | number | null = req.mode === 'offset' ? req.offset : req.cursor;
  const walkView = req.view.filter((v) => v !== 'contacts');
  const today = jr.store.today();
  const tally = new Map<number, number>();
  const count = (day: number): void => void tally.set(day, (tally.get(day) ?? 0) + 1);

  const direct = jr.fallback || (jr.predicted >= DIRECT_SHARE && req.suppression?.decidesBeforeReveal !== true);
  if (direct) {
    // Mostly unrevealed (a first run) or fallback: reveal the whole page at once, tokens paid once.
    const body = await fetchPage(
      ctx,
      pageUrl(ctx, req, start, req.view),
      req.bodyBytes,
      req.wanted,
      req.runId,
      req.fetched,
      req.signal,
      req.hold,
    );
    const ids = body.data.map((r) => recordId(r, req.idField));
    const revealed = ids.filter((id): id is string => id !== undefined);
    // What this page tells of the next: the share of it a reveal-once walk would have paid for.
    const { needs } = await decideReveals(jr.store, revealed, today);
    if (!jr.fallback && revealed.length > 0) jr.predicted = needs.filter(Boolean).length / revealed.length;
    revealed.forEach(() => count(today));
    return {
      body,
      walked: body.data.length,
      tokens: body.data.length,
      credits: body.data.length,
      revealed,
      tally,
      skipped: 0,
      missed: 0,
    };
  }

  const body = await fetchPage(
    ctx,
    pageUrl(ctx, req, start, walkView),
    req.bodyBytes,
    req.wanted,
    null,
    req.fetched,
    req.signal,
    req.hold,
  );
  const walked = body.data.length;
  let tokens = walked;
  let credits = 0;
  const ids = body.data.map((r) => recordId(r, req.idField));
  const known = ids.map((id, i) => ({ id, i })).filter((x): x is { id: string; i: number } => x.id !== undefined);
  const { needs, freshDays, suppressed } = await decideReveals(
    jr.store,
    ids,
    today,
    (i) => req.suppression?.beforeReveal(body.data[i]) === true,
  );
  freshDays.forEach(count);
  const unrevealedTotal = needs.filter(Boolean).length;
  jr.predicted = ids.length === 0 ? jr.predicted : unrevealedTotal / ids.length;
  const index = new Map(known.map((x) => [x.id, x.i]));
  const revealed: string[] = [];
  const done = new Array<boolean>(ids.length).fill(false);
  let stop: RevealPageResult['stop'];

  let pos = 0;
  let position: string | number | null = start;
  try {
    if (req.mode === 'cursor' && jr.offsets && req.position !== null) {
      const byOffset: string[] = [];
      try {
        await revealByOffset(ctx, jr, req, req.position, { ids, needs, done, body }, byOffset);
      } finally {
        // what was paid for counts even when a cap stopped the reveals half-way
        tokens += byOffset.length;
        credits += byOffset.length;
        for (const id of byOffset) {
          revealed.push(id);
          count(today);
        }
      }
    }
    for (const run of revealRuns(needs.map((need, i) => need && !done[i]))) {
      // A reveal that ended the walk (the live index shrank) leaves no cursor for later runs of this page.
      if (req.mode === 'cursor' && position === null && pos > 0) throw new WalkEnded('the walk ended before the run');
      if (req.mode === 'offset') {
        pos = run.start;
        position = (start as number) + run.start;
      }
      // Position a cursor at the run: a contacts-free request of limit = the gap (tokens only).
      while (pos < run.start) {
        const skip = await fetchPage(
          ctx,
          pageUrl(ctx, req, position, walkView),
          req.bodyBytes,
          run.start - pos,
          null,
          req.fetched,
          req.signal,
        );
        tokens += skip.data.length;
        heldToItsSize(ctx, jr, req, skip);
        const next = nextCursorOf(skip);
        if (skip.data.length === 0 || next === null) throw new WalkEnded('the walk ended before the run');
        pos += skip.data.length;
        position = next;
      }
      // Reveal exactly the run.
      while (pos <= run.end) {
        const page = await fetchPage(
          ctx,
          pageUrl(ctx, req, position, req.view),
          req.bodyBytes,
          run.end - pos + 1,
          req.runId,
          req.fetched,
          req.signal,
        );
        const n = page.data.length;
        tokens += n;
        credits += n;
        for (const record of page.data) {
          const id = recordId(record, req.idField);
          if (id === undefined) continue;
          revealed.push(id);
          count(today);
          const at = index.get(id);
          // The live index may have moved: a revealed person not on this page is still delivered (it was paid for).
          if (at === undefined) body.data.push(record);
          else {
            body.data[at] = record;
            done[at] = true;
          }
        }
        if (n === 0) throw new WalkEnded('the walk ended before the run');
        heldToItsSize(ctx, jr, req, page);
        pos += n;
        if (req.mode === 'offset') position = (position as number) + n;
        else {
          const next = nextCursorOf(page);
          if (next === null && pos <= run.end) throw new WalkEnded('the walk ended before the run');
          position = next;
        }
      }
    }
  } catch (err) {
    if (err instanceof InvalidCursorError && req.mode === 'cursor') {
      jr.fallback = true;
      ctx.stats.revealFallbacks += 1;
      ctx.logger.warn(
        { entity: req.entity, fetched: req.fetched },
        'invalid_cursor on a re-sent cursor: revealing whole pages for the rest of this journey',
      );
    } else if (err instanceof BudgetStopError) {
      // A cap (credits, token reserve) stopped the reveals: keep the page up to its first person that should have
      // been revealed and was not, so nothing unpaid lands and the walked records before it are not lost.
      const keep = needs.findIndex((need, i) => need && !done[i]);
      stop = { keep: keep < 0 ? ids.length : keep, error: err };
    } else if (!(err instanceof WalkEnded)) throw err;
  }
  const missed = stop ? 0 : needs.filter((need, i) => need && !done[i]).length;
  return {
    body,
    walked,
    tokens,
    credits,
    revealed,
    tally,
    skipped: known.length - unrevealedTotal - suppressed,
    missed,
    ...(stop ? { stop } : {}),
  };
}

/**
 * Reveals each run of `needs` with one request at its offset in the walk (`limit` = its length, `view` with
 * contacts): tokens and credits for exactly those persons. Every answer is checked against the ids the walk saw
 * there; on a difference (an API whose offset order is not its cursor order, a live index that moved) or an offset
 * the API refuses, offsets stop for this journey and the caller positions cursors for what is left. Persons paid
 * for are always delivered (in place, or appended when not on the page) and their ids added to `revealed`.
 */
async function revealByOffset(
  ctx: JourneyContext,
  jr: JourneyReveal,
  req: RevealPageRequest,
  position: number,
  page: { ids: (string | undefined)[]; needs: boolean[]; done: boolean[]; body: PageBody },
  revealed: string[],
): Promise<void> {
  const { ids, needs, done, body } = page;
  const index = new Map(ids.map((id, i) => [id, i]));
  for (const run of revealRuns(needs)) {
    const offset = position + run.start;
    if (offset > MAX_OFFSET) break;
    let answer: PageBody;
    try {
      answer = await fetchPage(
        ctx,
        pageUrl(ctx, req, offset, req.view),
        req.bodyBytes,
        run.end - run.start + 1,
        req.runId,
        req.fetched,
        req.signal,
      );
    } catch (err) {
      if (!(err instanceof SourceValidationError)) throw err;
      jr.offsets = false;
      ctx.logger.warn(
        { entity: req.entity, offset },
        'the API refused a reveal by offset: positioning cursors for the rest of this journey',
      );
      return;
    }
    let matched = answer.data.length === run.end - run.start + 1;
    answer.data.forEach((record, k) => {
      const id = recordId(record, req.idField);
      if (id === undefined) return;
      revealed.push(id);
      const at = index.get(id);
      if (at === undefined) body.data.push(record);
      else {
        body.data[at] = record;
        done[at] = true;
      }
      if (at !== run.start + k) matched = false;
    });
    if (!matched) {
      jr.offsets = false;
      ctx.stats.revealOffsetMismatches += 1;
      ctx.logger.warn(
        { entity: req.entity, offset },
        'a reveal by offset answered other persons than the walk: positioning cursors for the rest of this journey',
      );
      return;
    }
  }
}
