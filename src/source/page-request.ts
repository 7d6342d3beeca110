/** One search request of a journey with its budget reservations, and the context journeys share. */
import type { ChainableCommander } from 'ioredis';
import { sleep } from '../shared/abortable-sleep.js';
import type { Alongside } from '../shared/rate-governor.js';
import type { Logger } from '../shared/logger.js';
import type { CreditReservation, RedisBudgetLedger, Reservation, TokenReservation } from './budget-ledger.js';
import { BudgetStopError, NextCursorError, SourceProtocolError } from './errors.js';
import type { RequestExecutor, SourceStats } from './request-executor.js';
import type { RevealLog } from './reveal-log.js';
import type { RevealStore } from './reveal-store.js';
import type { RunDedup } from './run-dedup.js';
import type { ApiPaths } from './api-paths.js';

/** What a run registered for its contacts journeys (see SourceClient.prepareReveal). */
export interface RevealRunInfo {
  searchKey: string;
  /** Expected share of unrevealed persons, for the first page of each journey. */
  newShare: number;
  /**
   * A dry run: its journeys never ask for contacts (no credit); each page is looked up in the reveal store instead,
   * to forecast what a real run would reveal.
   */
  forecastOnly?: boolean;
  /** The search and segment its paid reveals are logged under (src/source/reveal-log.ts). */
  log?: { search: string; segment: string };
}

export interface JourneyContext {
  baseUrl: string;
  paths: ApiPaths;
  executor: RequestExecutor;
  ledger: RedisBudgetLedger;
  dedup: RunDedup;
  stats: SourceStats;
  logger: Logger;
  /** Revealed-at store of the account; contacts journeys of runs in `revealRuns` reveal each person once. */
  reveals?: RevealStore;
  revealRuns?: Map<string, RevealRunInfo>;
  /** The record of every reveal the API charged for (runs that registered `log`). */
  revealLog?: RevealLog;
}

export interface PageBody {
  data: unknown[];
  page: { nextCursor?: unknown; hasMore?: unknown; total?: unknown; limit?: unknown };
  /** The `limit` the request carried (set by fetchPage). */
  limitSent?: number;
  /** The cursor page was sent as an offset page instead (see `CursorHold`). */
  movedToOffset?: boolean;
}

/**
 * A cursor page of a journey held to a page size: an API may keep the `limit` a journey opened with and ignore a
 * smaller one on later pages (the spec's `page.limit` is the "page size in force"). A page that may take fewer
 * records (a record cap, the token reserve, a credit cap) is then sent as an offset page at the journey's position
 * instead (same body, no sort: the walk's order), which takes exactly its `limit`.
 */
export interface CursorHold {
  /** The page size the journey is held to. */
  inForce: number;
  /** Records of the walk before this page, or null when unknown (then the cursor page is sent as it is). */
  offset: number | null;
}

/** The largest `offset` the API accepts. */
export const MAX_OFFSET = 10_000;

/** Positions a cursor page: by offset when it is held and takes fewer than its size in force (and can). */
function placePage(url: URL, cursor: string | null, limit: number, hold: CursorHold | undefined): void {
  url.searchParams.set('limit', String(limit));
  if (cursor === null) return;
  if (hold && limit < hold.inForce && hold.offset !== null && hold.offset <= MAX_OFFSET) {
    url.searchParams.delete('cursor');
    url.searchParams.set('offset', String(hold.offset));
  } else {
    url.searchParams.delete('offset');
    url.searchParams.set('cursor', cursor);
  }
}

/** The spec bounds a cursor at 200 characters of base64url (padding allowed). */
export const MAX_CURSOR_LENGTH = 200;
const BASE64URL = /^[A-Za-z0-9_-]+={0,2}$/;

export function parsePage(body: unknown): PageBody {
  const b = body as { data?: unknown; page?: unknown } | null;
  if (!b || !Array.isArray(b.data) || b.page === null || typeof b.page !== 'object') {
    throw new SourceProtocolError('a search answer lacks `data` or `page`');
  }
  const page = b.page as PageBody['page'];
  const next = page.nextCursor;
  if (typeof next === 'string' && next.length > 0) {
    if (next.length > MAX_CURSOR_LENGTH)
      throw new NextCursorError(
        `a search answer's nextCursor has ${next.length} characters (the spec allows ${MAX_CURSOR_LENGTH})`,
      );
    if (!BASE64URL.test(next)) throw new NextCursorError("a search answer's nextCursor is not base64url");
  }
  return { data: b.data, page };
}

/** A page whose tokens are all held by other pages in flight: it waits for them (never leaves fetchPage). */
const tokensHeld = new Error('search tokens held by pages in flight');

/**
 * One page request with its budget reservations held only while it is in flight (the answer's headers then carry
 * the new balance). `creditRunId` is set when the page reveals contacts. A request that got no answer may still
 * have been served and charged (credits are never reported back): it is booked at its worst case, `limit` tokens
 * and credits, so the caps are never passed; a retry of it reserves again.
 */
export async function fetchPage(
  ctx: JourneyContext,
  url: URL,
  bodyBytes: string,
  wanted: number,
  creditRunId: string | null,
  fetched: number,
  signal: AbortSignal | undefined,
  hold?: CursorHold,
): Promise<PageBody> {
  const cursor = url.searchParams.get('cursor');
  const asked = url.search;
  const offsetPage = url.searchParams.has('offset');
  // Balance unknown and a reserve to keep: one record is asked first to learn the balance. A cursor page's probe is
  // a request of its own (no cursor, no contacts), as a journey it opened would be held to one record a page.
  let probing = false;
  let tokens: Reservation | null = null;
  let credits: Reservation | null = null;
  let limit = 0;
  let spent = 0;
  const tookTokens = (t: TokenReservation): void => {
    tokens = t;
    if (t.granted <= 0) {
      // Other pages in flight hold what is left: they may return fewer records than they reserved (a small
      // partition's only page), so this page waits for them (tokensHeld) instead of stopping the run short.
      if (t.held > 0) throw tokensHeld;
      throw new BudgetStopError(
        'token_reserve',
        `the search-token balance reached the reserve (${ctx.ledger.reserve}); ${fetched} records fetched`,
      );
    }
    const unknown = t.available < 0 && ctx.ledger.reserve > 0;
    probing = unknown && !offsetPage;
    limit = unknown ? 1 : t.granted;
    url.search = probing ? '' : asked;
    placePage(url, probing ? null : cursor, limit, hold);
  };
  const reserve = async (): Promise<void> => {
    for (;;) {
      try {
        tookTokens(await ctx.ledger.reserveTokens(wanted));
        break;
      } catch (err) {
        if (err !== tokensHeld) throw err;
        tokens = null;
        await sleep(10, signal);
      }
    }
    if (creditRunId !== null && !probing) {
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
      placePage(url, cursor, limit, hold);
    }
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
    if (creditRunId !== null && !probing) ctx.stats.creditsSpent += limit;
    await ctx.ledger.debitTokens(limit);
    await release(limit);
    if (retrying) await reserve();
  };
  // Without credits to reserve, the page's tokens are reserved in the governor's grant round trip (one instead of
  // two); a budget stop then gives the grant back. It appends nothing while a reservation is held (a retry).
  let pending: { read(reply: unknown): TokenReservation } | undefined;
  const withGrant: Alongside | undefined =
    creditRunId !== null
      ? undefined
      : {
          append: (batch) => {
            if (tokens === null) pending = ctx.ledger.reserveTokensInto(batch, wanted);
          },
          read: (replies) => {
            const taken = pending;
            pending = undefined;
            if (taken !== undefined) tookTokens(taken.read(replies[0]));
          },
        };
  try {
    if (withGrant === undefined) await reserve();
    // A 2xx answer's balance and this release go to Redis in one round trip (balance first); when that booking
    // fails, execute throws and `release` below frees the reservation as before.
    const onAnswered = (batch: ChainableCommander): void => {
      const t: Reservation | null = tokens;
      if (t) ctx.ledger.releaseTokensInto(batch, t.id);
    };
    const send = (alongside: Alongside | undefined) =>
      ctx.executor.execute({
        method: 'POST',
        url,
        body: bodyBytes,
        operation: 'search',
        signal,
        onOutcomeUnknown,
        onAnswered,
        ...(alongside ? { withGrant: alongside } : {}),
      });
    let alongside = withGrant;
    let body: PageBody;
    for (;;) {
      const res = await send(alongside).catch(async (err: unknown) => {
        if (err !== tokensHeld) throw err;
        // The grant's reservation found the balance held by pages in flight: wait for them, then send with tokens
        // reserved.
        tokens = null;
        await reserve();
        return send(undefined);
      });
      alongside = undefined;
      tokens = null;
      body = parsePage(res.body);
      if (!probing) break;
      // The probe's record is not the page's: it paid a token to learn the balance; now the page itself.
      ctx.stats.tokensSpent += body.data.length;
      await reserve();
    }
    spent = body.data.length;
    body.limitSent = limit;
    if (!url.searchParams.has('cursor') && cursor !== null) body.movedToOffset = true;
    return body;
  } finally {
    await release(spent);
  }
}

export function creditStop(binding: CreditReservation['binding']): BudgetStopError {
  return binding === 'credit_cap_day'
    ? new BudgetStopError('credit_cap_day', "the account spent today's credit cap (in-flight pages included)")
    : new BudgetStopError('credit_cap_run', 'the run spent its credit cap (in-flight pages included)');
}
