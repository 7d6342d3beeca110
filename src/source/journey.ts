/**
 * Walks the pages of one request body. Cursor mode: identical body bytes on every page, checkpoint
 * `{cursor, fetched, fingerprint}`, restart from page 1 on invalid_cursor. Offset mode: sorted top-N, refused when
 * it would need an offset above 10,000. Before each page the search tokens (balance - reserve) and credits (run and
 * day caps) are reserved, and the page's `limit` is sized so that neither they nor `maxRecords` can be passed.
 */
import type { Logger } from '../shared/logger.js';
import { sleep } from '../shared/abortable-sleep.js';
import { joinUrl } from './api-paths.js';
import type { CreditReservation, RedisBudgetLedger, Reservation } from './budget-ledger.js';
import {
  BudgetStopError,
  CheckpointMismatchError,
  InvalidCursorError,
  OffsetLimitError,
  SourceProtocolError,
  SourceValidationError,
} from './errors.js';
import { fingerprintJourney } from './journey-fingerprint.js';
import type { RecordQuota } from './record-quota.js';
import type { RequestExecutor } from './request-executor.js';
import { recordId, type RunDedup } from './run-dedup.js';
import type { ApiPaths, Entity, Filter, JourneyCheckpoint, JourneyOptions, JourneyPage, SourceStats } from './types.js';

export const MAX_OFFSET = 10_000;
const MAX_PAGE_SIZE = 100;

export interface JourneyContext {
  baseUrl: string;
  paths: ApiPaths;
  executor: RequestExecutor;
  ledger: RedisBudgetLedger;
  dedup: RunDedup;
  stats: SourceStats;
  logger: Logger;
}

interface PageBody {
  data: unknown[];
  page: { nextCursor?: unknown; hasMore?: unknown; total?: unknown };
}

function parsePage(body: unknown): PageBody {
  const b = body as { data?: unknown; page?: unknown } | null;
  if (!b || !Array.isArray(b.data) || b.page === null || typeof b.page !== 'object') {
    throw new SourceProtocolError('a search answer lacks `data` or `page`');
  }
  return { data: b.data, page: b.page as PageBody['page'] };
}

function validate(options: JourneyOptions, mode: 'cursor' | 'offset', pageSize: number): void {
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE_SIZE) {
    throw new SourceValidationError('invalid journey options', [{ param: 'pageSize', message: 'pageSize must be an integer from 1 to 100' }]);
  }
  if (mode !== 'offset') return;
  const max = options.maxRecords;
  if (max === undefined) throw new OffsetLimitError('offset mode needs maxRecords (a top-N); use cursor mode to walk everything');
  const lastOffset = Math.floor((max - 1) / pageSize) * pageSize;
  if (lastOffset > MAX_OFFSET) {
    throw new OffsetLimitError(`top ${max} needs offset ${lastOffset}; the API allows at most ${MAX_OFFSET} (use cursor mode)`);
  }
}

export async function* walkJourney(ctx: JourneyContext, entity: Entity, filter: Filter, options: JourneyOptions): AsyncGenerator<JourneyPage> {
  const mode = options.mode ?? 'cursor';
  const pageSize = options.pageSize ?? MAX_PAGE_SIZE;
  validate(options, mode, pageSize);
  const view = options.view ?? [];
  const bodyBytes = JSON.stringify(filter);
  const fingerprint = fingerprintJourney(entity, bodyBytes, view, mode);
  const withCredits = entity === 'persons' && view.includes('contacts');
  const idField = options.idField ?? 'id';

  let state: JourneyCheckpoint = options.checkpoint ?? { mode, cursor: null, offset: 0, fetched: 0, fingerprint, pass: 1 };
  if (state.fingerprint !== fingerprint || state.mode !== mode) {
    throw new CheckpointMismatchError('the checkpoint belongs to another journey (body, view or mode changed); start a new one');
  }
  let restarted = false;
  let newInPass = 0;

  for (;;) {
    let want = pageSize;
    if (options.maxRecords !== undefined) want = Math.min(want, options.maxRecords - state.fetched);
    if (want <= 0) return;

    const url = joinUrl(ctx.baseUrl, ctx.paths.search[entity]);
    if (mode === 'offset') url.searchParams.set('offset', String(state.offset));
    else if (state.cursor !== null) url.searchParams.set('cursor', state.cursor);
    if (view.length > 0) url.searchParams.set('view', view.join(','));

    const quota = options.quota;
    const granted = quota ? await reserveQuota(quota, want, options.signal) : want;
    let body: PageBody;
    try {
      body = await fetchPage(ctx, url, bodyBytes, granted, withCredits ? options.runId : null, state.fetched, options.signal);
      quota?.settle(granted, body.data.length);
    } catch (error) {
      quota?.settle(granted, 0);
      if (error instanceof InvalidCursorError && state.cursor !== null) {
        ctx.stats.journeyRestarts += 1;
        ctx.logger.warn({ entity, fetched: state.fetched }, 'invalid_cursor: restarting the journey from page 1');
        state = { ...state, cursor: null };
        restarted = true;
        continue;
      }
      throw error;
    }

    const returned = body.data.length;
    const spentCredits = withCredits ? returned : 0;
    ctx.stats.tokensSpent += returned;
    ctx.stats.recordsReturned += returned;
    ctx.stats.creditsSpent += spentCredits;

    const records: unknown[] = [];
    for (const record of body.data) {
      const id = recordId(record, idField);
      if (id === undefined || ctx.dedup.admit(options.runId, id)) records.push(record);
    }
    ctx.stats.duplicatesDropped += returned - records.length;
    newInPass += records.length;

    const fetched = state.fetched + returned;
    const capped = (options.maxRecords !== undefined && fetched >= options.maxRecords) || (options.quota !== undefined && options.quota.fetched >= options.quota.max);
    let done: boolean;
    let total: number | undefined;
    if (mode === 'cursor') {
      const next = typeof body.page.nextCursor === 'string' && body.page.nextCursor.length > 0 ? body.page.nextCursor : null;
      done = capped || body.page.hasMore === false || next === null;
      state = { ...state, cursor: done ? null : next, fetched };
      // A live index can skip records between pages; a sweep walks again and keeps only records not yet seen.
      const pass = state.pass ?? 1;
      if (done && !capped && pass <= (options.sweepPasses ?? 0) && (pass === 1 || newInPass > 0)) {
        state = { ...state, pass: pass + 1 };
        newInPass = 0;
        done = false;
      }
    } else {
      total = typeof body.page.total === 'number' ? body.page.total : undefined;
      const offset = state.offset + returned;
      done = capped || returned === 0 || (total !== undefined && offset >= total);
      state = { ...state, offset, fetched };
    }
    yield {
      records,
      returned,
      duplicates: returned - records.length,
      checkpoint: state,
      tokensCharged: returned,
      creditsCharged: spentCredits,
      ...(total === undefined ? {} : { total }),
      restarted,
      done,
    };
    restarted = false;
    if (done) return;
  }
}

/**
 * One page request with its budget reservations held only while it is in flight (the answer's headers then carry
 * the new balance). `creditRunId` is set when the page reveals contacts. A request that got no answer may still
 * have been served and charged (credits are never reported back): it is booked at its worst case, `limit` tokens
 * and credits, so the caps are never passed; a retry of it reserves again.
 */
async function fetchPage(
  ctx: JourneyContext, url: URL, bodyBytes: string, wanted: number, creditRunId: string | null, fetched: number, signal: AbortSignal | undefined,
): Promise<PageBody> {
  let tokens: Reservation | null = null;
  let credits: Reservation | null = null;
  let limit = 0;
  let spent = 0;
  const reserve = async (): Promise<void> => {
    const t = await ctx.ledger.reserveTokens(wanted);
    tokens = t;
    if (t.granted <= 0) {
      throw new BudgetStopError('token_reserve', `the search-token balance reached the reserve (${ctx.ledger.reserve}); ${fetched} records fetched`);
    }
    // Balance unknown and a reserve to keep: a 1-record page learns the balance before we spend more.
    limit = t.available < 0 && ctx.ledger.reserve > 0 ? 1 : t.granted;
    if (creditRunId !== null) {
      let c = await ctx.ledger.reserveCredits(creditRunId, limit);
      // The rest of the cap is held by other pages in flight: they may return fewer records than they reserved
      // (a partition's last page), so wait for them to settle instead of stopping the run short of its cap.
      while (c.granted <= 0 && c.held > 0) {
        await sleep(10, signal);
        c = await ctx.ledger.reserveCredits(creditRunId, limit);
      }
      credits = c;
      if (c.granted <= 0) throw creditStop(c.binding);
      limit = Math.min(limit, c.granted);
    }
    url.searchParams.set('limit', String(limit));
  };
  const release = async (charged: number): Promise<void> => {
    const t: Reservation | null = tokens;
    const c: Reservation | null = credits;
    tokens = credits = null;
    if (t) await ctx.ledger.releaseTokens(t.id);
    if (c && creditRunId !== null) await ctx.ledger.settleCredits(creditRunId, c.id, charged);
  };
  const onOutcomeUnknown = async (retrying: boolean): Promise<void> => {
    ctx.stats.tokensSpent += limit;
    if (creditRunId !== null) ctx.stats.creditsSpent += limit;
    await ctx.ledger.debitTokens(limit);
    await release(limit);
    if (retrying) await reserve();
  };
  try {
    await reserve();
    const res = await ctx.executor.execute({ method: 'POST', url, body: bodyBytes, operation: 'search', signal, onOutcomeUnknown });
    const body = parsePage(res.body);
    spent = body.data.length;
    return body;
  } finally {
    await release(spent);
  }
}

/** Waits while other journeys' pages in flight hold what is left of the cap: they may return fewer records. */
async function reserveQuota(quota: RecordQuota, wanted: number, signal: AbortSignal | undefined): Promise<number> {
  for (;;) {
    const granted = quota.reserve(wanted);
    if (granted > 0) return granted;
    if (quota.fetched >= quota.max) throw new BudgetStopError('max_records', `the run's record cap (${quota.max}) is reached`);
    await sleep(10, signal);
  }
}

function creditStop(binding: CreditReservation['binding']): BudgetStopError {
  return binding === 'credit_cap_day'
    ? new BudgetStopError('credit_cap_day', "the account spent today's credit cap (in-flight pages included)")
    : new BudgetStopError('credit_cap_run', 'the run spent its credit cap (in-flight pages included)');
}
