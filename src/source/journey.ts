/**
 * Walks the pages of one request body. Cursor mode: identical body bytes on every page, checkpoint
 * `{cursor, fetched, fingerprint}`, restart from page 1 on invalid_cursor. Offset mode: sorted top-N, refused when
 * it would need an offset above 10,000. Before each page the search tokens (balance - reserve) and credits (run and
 * day caps) are reserved, and the page's `limit` is sized so that neither they nor `maxRecords` can be passed.
 * Contacts journeys of a run registered with `prepareReveal` pay credits only for persons not revealed before
 * (reveal-page.ts); those of a dry run never ask for contacts and only count who a real run would reveal.
 */
import { sleep } from '../shared/abortable-sleep.js';
import { joinUrl } from './api-paths.js';
import {
  BudgetStopError,
  CheckpointMismatchError,
  InvalidCursorError,
  NextCursorError,
  OffsetLimitError,
  SourceValidationError,
} from './errors.js';
import { fingerprintJourney } from './journey-fingerprint.js';
import { fetchPage, MAX_OFFSET, type CursorHold, type JourneyContext, type PageBody } from './page-request.js';
import type { RecordQuota } from './record-quota.js';
import { decideReveals } from './reveal-decision.js';
import type { Suppression } from './suppression.js';
import { revealPage, type JourneyReveal, type RevealPageResult } from './reveal-page.js';
import type { RevealStore } from './reveal-store.js';
import { recordId, type PageDedup } from './run-dedup.js';
import { keptRecords } from './page-records.js';
import type { Entity, Filter } from './api-terms.js';

/** Saved state of a journey: enough to resume it. Holds a cursor, so store it only briefly (short TTL). */
export interface JourneyCheckpoint {
  mode: 'cursor' | 'offset';
  /** Next page's cursor (cursor mode); null before the first page. */
  cursor: string | null;
  /** Next page's offset (offset mode). */
  offset: number;
  /** Records returned so far (tokens charged), duplicates included. */
  fetched: number;
  /** Hash of entity + body + view + mode: a checkpoint only resumes the journey it came from. */
  fingerprint: string;
  /** Cursor mode: 1 for the walk, 2.. for sweeps (see `JourneyOptions.sweepPasses`). */
  pass?: number;
  /** Cursor mode: the page size the API holds the journey's cursor to (its `page.limit`). */
  inForce?: number;
  /** Cursor mode: the walk goes on by offset pages from `offset` (a page smaller than the size in force was due). */
  byOffset?: boolean;
}

export interface JourneyOptions {
  runId: string;
  /** The run's record ids seen (one call a page); default the client's own, in memory per `runId`. */
  dedup?: PageDedup;
  view?: string[];
  /** 1..100, default 100. */
  pageSize?: number;
  /** Stop after this many records returned by this journey (the last page's limit is sized to it). */
  maxRecords?: number;
  /**
   * A record cap shared with the run's other journeys (pages reserve from it, so together they never pass it).
   * The journey ends (`done`) when the cap is used up; a page that finds nothing left throws BudgetStopError
   * ('max_records').
   */
  quota?: RecordQuota;
  /** Records the journey's filter counted when planned: a cap it will not reach does not size its pages. */
  expected?: number;
  mode?: 'cursor' | 'offset';
  checkpoint?: JourneyCheckpoint;
  signal?: AbortSignal;
  /** Path of the record id (dot path), default 'id'. */
  idField?: string;
  /**
   * Cursor mode: after the walk, walk again up to this many times (stopping after a sweep that found nothing new)
   * to collect records the live index skipped between pages. Each sweep costs tokens for every record again.
   * Default 0.
   */
  sweepPasses?: number;
  /**
   * Contacts journeys of a run registered with `SourceClient.prepareReveal` reveal only persons not revealed
   * before (default true); false pays for every person of every page.
   */
  revealOnce?: boolean;
  /** Persons never revealed nor delivered (src/source/suppression.ts); their records are dropped from the page. */
  suppression?: Suppression;
}

export interface JourneyPage {
  /** Records of this page not seen before in this run (deduplicated by id). */
  records: unknown[];
  /** Records the API returned on this page (what it charged tokens for). */
  returned: number;
  /** Duplicates dropped from this page. */
  duplicates: number;
  /** Ids the run saw first on this page (kept or suppressed): the run holds them as seen once the page is written. */
  admitted?: string[];
  /** Match keys of this page's suppressed records: they leave the search's mirror. */
  suppressedKeys?: string[];
  /** State after this page: save it to resume. */
  checkpoint: JourneyCheckpoint;
  tokensCharged: number;
  creditsCharged: number;
  /** `page.total` in offset mode. */
  total?: number;
  /** True when the journey had to restart from page 1 (invalid_cursor) before this page. */
  restarted: boolean;
  done: boolean;
  /**
   * Reveal-once journeys: ids whose contacts this page revealed; pass them to `markRevealed` once the CRM holds them.
   */
  revealed?: string[];
  /** Reveal-once journeys: persons passed by without a reveal (revealed before and still fresh). */
  revealSkipped?: number;
  /** The API refused a re-sent cursor: this journey reveals whole pages from here on. */
  revealFallback?: boolean;
  /** A dry run's page of a contacts search: asked without contacts, so paths into them are absent by design. */
  contactsLeftOut?: boolean;
  /** Reveal-once journeys: persons of this page by reveal day, booked with the marks (`bookReveals`). */
  revealTally?: Map<number, number>;
}

export type { JourneyContext } from './page-request.js';

export { MAX_OFFSET } from './page-request.js';
const MAX_PAGE_SIZE = 100;

function validate(options: JourneyOptions, mode: 'cursor' | 'offset', pageSize: number): void {
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE_SIZE) {
    throw new SourceValidationError('invalid journey options', [
      { param: 'pageSize', message: 'pageSize must be an integer from 1 to 100' },
    ]);
  }
  if (mode !== 'offset') return;
  const max = options.maxRecords;
  if (max === undefined)
    throw new OffsetLimitError('offset mode needs maxRecords (a top-N); use cursor mode to walk everything');
  const lastOffset = Math.floor((max - 1) / pageSize) * pageSize;
  if (lastOffset > MAX_OFFSET) {
    throw new OffsetLimitError(
      `top ${max} needs offset ${lastOffset}; the API allows at most ${MAX_OFFSET} (use cursor mode)`,
    );
  }
}

export async function* walkJourney(
  ctx: JourneyContext,
  entity: Entity,
  filter: Filter,
  options: JourneyOptions,
): AsyncGenerator<JourneyPage> {
  const mode = options.mode ?? 'cursor';
  const pageSize = options.pageSize ?? MAX_PAGE_SIZE;
  validate(options, mode, pageSize);
  // A dry run's journeys never ask for contacts, whatever view they are given: a dry run costs no credit.
  const runInfo = entity === 'persons' ? ctx.revealRuns?.get(options.runId) : undefined;
  const forecastOnly = runInfo?.forecastOnly === true;
  const view = (options.view ?? []).filter((v) => !forecastOnly || v !== 'contacts');
  const bodyBytes = JSON.stringify(filter);
  const fingerprint = fingerprintJourney(entity, bodyBytes, view, mode);
  const withCredits = entity === 'persons' && view.includes('contacts');
  const idField = options.idField ?? 'id';
  const suppression = options.suppression?.empty === false ? options.suppression : undefined;
  const dedup = options.dedup ?? ctx.dedup.forRun(options.runId);

  let state: JourneyCheckpoint = options.checkpoint ?? {
    mode,
    cursor: null,
    offset: 0,
    fetched: 0,
    fingerprint,
    pass: 1,
  };
  if (state.fingerprint !== fingerprint || state.mode !== mode) {
    throw new CheckpointMismatchError(
      'the checkpoint belongs to another journey (body, view or mode changed); start a new one',
    );
  }
  let restarted = false;
  let newInPass = 0;
  // Records of the cursor walk before the next page (a reveal's offset): unknown when resumed in a later sweep pass.
  let position: number | null = state.byOffset
    ? state.offset
    : state.cursor === null
      ? 0
      : (state.pass ?? 1) === 1
        ? state.fetched
        : null;
  // Contacts journeys of a run that registered for it reveal each person once (reveal-page.ts).
  const reveal: JourneyReveal | undefined =
    runInfo && withCredits && options.revealOnce !== false && ctx.reveals
      ? {
          store: ctx.reveals,
          predicted: runInfo.newShare,
          fallback: false,
          offsets: true,
        }
      : undefined;
  let pendingStop: BudgetStopError | undefined;
  let cursorRefused = false;

  for (;;) {
    if (pendingStop) throw pendingStop;
    let want = pageSize;
    // A run's shared cap counts distinct records and so takes over from `maxRecords` (records returned).
    const limit = options.quota ? undefined : options.maxRecords;
    if (limit !== undefined) want = Math.min(want, limit - state.fetched);
    if (want <= 0) return;
    const byOffset = mode === 'offset' || state.byOffset === true;
    if (mode === 'cursor' && !byOffset) {
      // A cursor journey may be held to the size it opened with: it opens at a size whose pages end where the
      // records left do, and asks that size on every later page.
      // what the cap has left to keep, pages of other journeys in flight included (reserveQuota waits for them)
      const quota = options.quota;
      const left = quota ? quota.max - quota.kept : limit === undefined ? undefined : limit - state.fetched;
      const reaches = left !== undefined && (options.expected === undefined || options.expected >= left);
      if (state.cursor === null) want = Math.min(want, journeyPageSize(reaches ? left : undefined, pageSize));
      else want = Math.min(want, state.inForce ?? pageSize);
    }

    const url = joinUrl(ctx.baseUrl, ctx.paths.search[entity]);
    const at = mode === 'offset' ? state.offset : state.byOffset ? (position ?? state.offset) : undefined;
    if (at !== undefined) url.searchParams.set('offset', String(at));
    else if (state.cursor !== null) url.searchParams.set('cursor', state.cursor);
    if (view.length > 0) url.searchParams.set('view', view.join(','));
    const hold: CursorHold | undefined =
      at === undefined && state.cursor !== null ? { inForce: state.inForce ?? pageSize, offset: position } : undefined;

    const quota = options.quota;
    const opening = mode === 'cursor' && state.cursor === null && !state.byOffset;
    const granted = quota ? await reserveQuota(quota, want, opening, options.signal) : want;
    let body: PageBody;
    let revealed: RevealPageResult | undefined;
    try {
      if (reveal) {
        revealed = await revealPage(ctx, reveal, {
          entity,
          mode: byOffset ? 'offset' : 'cursor',
          cursor: state.cursor,
          offset: at ?? state.offset,
          ...(hold ? { hold } : {}),
          position,
          bodyBytes,
          view,
          wanted: granted,
          runId: options.runId,
          idField,
          fetched: state.fetched,
          signal: options.signal,
          ...(suppression ? { suppression } : {}),
        });
        body = revealed.body;
      } else
        body = await fetchPage(
          ctx,
          url,
          bodyBytes,
          granted,
          withCredits ? options.runId : null,
          state.fetched,
          options.signal,
          hold,
        );
    } catch (error) {
      quota?.settle(granted, 0);
      // A page whose nextCursor breaks the spec: never sent nor checkpointed; one restart, then the run fails.
      if (error instanceof NextCursorError && !cursorRefused) {
        cursorRefused = true;
        ctx.stats.journeyRestarts += 1;
        ctx.logger.warn(
          { entity, fetched: state.fetched },
          'the API sent a malformed nextCursor: restarting the journey from page 1',
        );
        state = opened(state);
        restarted = true;
        position = 0;
        continue;
      }
      if (error instanceof InvalidCursorError && state.cursor !== null) {
        ctx.stats.journeyRestarts += 1;
        ctx.logger.warn({ entity, fetched: state.fetched }, 'invalid_cursor: restarting the journey from page 1');
        state = opened(state);
        restarted = true;
        position = 0;
        continue;
      }
      throw error;
    }

    const returned = revealed ? revealed.walked : body.data.length;
    const spentCredits = revealed ? revealed.credits : withCredits ? returned : 0;
    const spentTokens = revealed ? revealed.tokens : returned;
    ctx.stats.tokensSpent += spentTokens;
    ctx.stats.recordsReturned += spentTokens;
    ctx.stats.creditsSpent += spentCredits;
    if (revealed) {
      // The record of who was paid for (Art. 30): where the charge is known, whether or not the CRM takes them.
      if (runInfo?.log && ctx.revealLog)
        await ctx.revealLog.append({ runId: options.runId, ...runInfo.log, ids: revealed.revealed });
      ctx.stats.personsRevealed += revealed.revealed.length;
      ctx.stats.revealSkipped += revealed.skipped;
      ctx.stats.revealMissed += revealed.missed;
    }
    // A dry run: who of this page a real run would pay for, decided as it would be (no credit, nothing marked).
    const forecast = forecastOnly && ctx.reveals ? await revealsOf(ctx.reveals, body, idField, suppression) : undefined;
    if (forecast !== undefined) {
      ctx.stats.revealForecast += forecast;
      ctx.stats.revealForecastSkipped += returned - forecast;
    }
    // A credit cap that stopped the page mid-way: deliver what was paid for, then stop.
    const delivered = revealed?.stop ? body.data.slice(0, revealed.stop.keep) : body.data;
    if (revealed?.stop) pendingStop = revealed.stop.error;

    const kept = await keptRecords(dedup, delivered, idField, suppression).catch((error: unknown) => {
      quota?.settle(granted, 0);
      throw error;
    });
    const { records, suppressed } = kept;
    ctx.stats.suppressed += suppressed;
    ctx.stats.duplicatesDropped += returned - records.length - suppressed;
    newInPass += records.length;
    quota?.settle(granted, records.length);

    const fetched = state.fetched + returned;
    const capped =
      pendingStop !== undefined ||
      (limit !== undefined && fetched >= limit) ||
      (quota !== undefined && quota.kept >= quota.max);
    let done = false;
    let total: number | undefined;
    if (mode === 'cursor' && (state.byOffset || body.movedToOffset)) {
      // Walking on by offset: the end is an empty or short page, the total, or the deepest offset.
      position = (position ?? 0) + returned;
      const matches = typeof body.page.total === 'number' ? body.page.total : undefined;
      done =
        capped ||
        returned === 0 ||
        returned < (body.limitSent ?? 0) ||
        (matches !== undefined && position >= matches) ||
        position > MAX_OFFSET;
      state = { ...state, cursor: null, byOffset: true, offset: position, fetched };
    }
    if (mode === 'cursor' && !state.byOffset) {
      const next =
        typeof body.page.nextCursor === 'string' && body.page.nextCursor.length > 0 ? body.page.nextCursor : null;
      done = capped || body.page.hasMore === false || next === null;
      state = { ...state, cursor: done ? null : next, fetched, inForce: sizeInForce(body, state) };
      if (position !== null) position += returned;
    }
    if (mode === 'cursor') {
      // A live index can skip records between pages; a sweep walks again and keeps only records not yet seen.
      const pass = state.pass ?? 1;
      if (done && !capped && pass <= (options.sweepPasses ?? 0) && (pass === 1 || newInPass > 0)) {
        state = { ...opened(state), pass: pass + 1 };
        newInPass = 0;
        position = 0;
        done = false;
      }
    } else {
      total = typeof body.page.total === 'number' ? body.page.total : undefined;
      const offset = state.offset + returned;
      // Repeats of a moving index may carry a capped top-N past the API's deepest offset: it ends with what it has.
      done = capped || returned === 0 || (total !== undefined && offset >= total) || offset > MAX_OFFSET;
      state = { ...state, offset, fetched };
    }
    yield {
      records,
      returned,
      duplicates: returned - records.length - suppressed,
      admitted: kept.admitted,
      ...(kept.suppressedKeys.length > 0 ? { suppressedKeys: kept.suppressedKeys } : {}),
      checkpoint: state,
      tokensCharged: spentTokens,
      creditsCharged: spentCredits,
      ...(revealed
        ? {
            revealed: revealed.revealed,
            revealSkipped: revealed.skipped,
            revealTally: revealed.tally,
            ...(reveal?.fallback ? { revealFallback: true } : {}),
          }
        : {}),
      ...(forecast === undefined ? {} : { contactsLeftOut: true }),
      ...(total === undefined ? {} : { total }),
      restarted,
      done,
    };
    restarted = false;
    if (pendingStop) throw pendingStop;
    if (done) return;
  }
}

/** Persons of a page a real run would reveal (pay one credit each), as reveal-decision.ts decides. */
async function revealsOf(
  store: RevealStore,
  body: PageBody,
  idField: string,
  suppression: Suppression | undefined,
): Promise<number> {
  const ids = body.data.map((r) => recordId(r, idField));
  const { needs } = await decideReveals(store, ids, undefined, (i) => suppression?.beforeReveal(body.data[i]) === true);
  return needs.filter(Boolean).length;
}

/**
 * Waits while other journeys' pages in flight hold what is left of the cap: they may return fewer records. A journey
 * opening (its page size is then fixed) waits for them too rather than open smaller than it wants.
 */
async function reserveQuota(
  quota: RecordQuota,
  wanted: number,
  opening: boolean,
  signal: AbortSignal | undefined,
): Promise<number> {
  for (;;) {
    const granted = quota.reserve(wanted);
    if (granted > 0 && (granted === wanted || !opening || quota.inFlight === granted)) return granted;
    quota.settle(granted, 0);
    if (quota.kept >= quota.max)
      throw new BudgetStopError('max_records', `the run's record cap (${quota.max}) is reached`);
    await sleep(10, signal);
  }
}

/** A journey's page size when it opens: pages of at most 100 that end where the `left` records do (when known). */
function journeyPageSize(left: number | undefined, pageSize: number): number {
  if (left === undefined || left <= 0) return pageSize;
  return Math.ceil(left / Math.ceil(left / pageSize));
}

/** The page size a cursor answer says the journey is held to (its `page.limit`), else the size it was asked. */
function sizeInForce(body: PageBody, state: JourneyCheckpoint): number | undefined {
  const told = body.page.limit;
  if (typeof told === 'number' && Number.isInteger(told) && told >= 1) return told;
  return state.cursor === null ? body.limitSent : state.inForce;
}

/** The journey from page 1 again: no cursor, no size in force, not by offset. */
function opened(state: JourneyCheckpoint): JourneyCheckpoint {
  const { inForce: _inForce, byOffset: _byOffset, ...rest } = state;
  return { ...rest, cursor: null, offset: 0 };
}
