/** Search and count over the dataset: validation, cursor journeys, offset pages, budget and credit charging. */
import { bodyFingerprint } from './body-fingerprint.js';
import { createPrng } from './hash.js';
import type { BudgetLedger } from './budget-ledger.js';
import { decodeCursor, encodeCursor } from './cursor-codec.js';
import type { Dataset } from './dataset.js';
import type { EmulatorStats, CursorStyle, RecordStyle } from './types.js';
import type { FaultState } from './fault-state.js';
import { compileMatcher, type Matcher } from './filter-matcher.js';
import { parseFilterBody, type Entity, type FilterSpec, type SortField, type ValidationDetail } from './filter-spec.js';
import type { Reply } from './http-io.js';
import type { LiveIndex } from './live-index.js';
import { parseSearchQuery, type SearchQuery } from './query-params.js';
import { renderCompany, renderPerson, styleRecord } from './record-render.js';

/** Records one cursor journey may return (the API's depth; an emulator may be given another). */
export const API_JOURNEY_DEPTH = 100_000;
const MATCHER_CACHE_SIZE = 8;

export interface SearchContext {
  accountId: string;
  stats: EmulatorStats;
  /** Headers every reply of this request carries (RateLimit-*). */
  headers: Record<string, string>;
}

function invalid(details: ValidationDetail[], what: string, headers: Record<string, string>): Reply {
  return { status: 400, body: { message: `invalid ${what}`, details }, headers };
}

function coded(status: number, error: string, text: string, headers: Record<string, string>): Reply {
  return { status, body: { error, message: text }, headers };
}

export class SearchService {
  private readonly matchers = new Map<string, Matcher>();
  /** Totals per compiled filter, valid while the live index has not churned (offset mode recounts every page). */
  private readonly totals = new WeakMap<Matcher, { epoch: number; total: number }>();
  /** Cursors already answered, kept only while the `refuseResentCursor` fault is on (an API with one-shot cursors). */
  private readonly usedCursors = new Set<string>();

  constructor(
    private readonly data: Dataset,
    private readonly live: LiveIndex,
    private readonly budget: BudgetLedger,
    private readonly faults: FaultState,
    private readonly options: {
      recordStyle: RecordStyle;
      cursorStyle: CursorStyle;
      personCompany?: boolean;
      journeyDepth: number;
    },
  ) {}

  private matcher(entity: Entity, spec: FilterSpec, fingerprint: string): Matcher {
    const key = `${entity}:${fingerprint}`;
    let m = this.matchers.get(key);
    if (m) {
      this.matchers.delete(key);
    } else {
      m = compileMatcher(this.data, entity, spec);
      if (this.matchers.size >= MATCHER_CACHE_SIZE) this.matchers.delete(this.matchers.keys().next().value!);
    }
    this.matchers.set(key, m);
    return m;
  }

  private total(m: Matcher): number {
    const cached = this.totals.get(m);
    if (cached && cached.epoch === this.live.epoch) return cached.total;
    const total = m.count();
    this.totals.set(m, { epoch: this.live.epoch, total });
    return total;
  }

  private parse(entity: Entity, rawBody: string, ctx: SearchContext): { spec: FilterSpec; body: unknown } | Reply {
    let body: unknown;
    try {
      body = rawBody.trim() === '' ? {} : JSON.parse(rawBody);
    } catch {
      return invalid([{ path: '', message: 'body must be valid JSON' }], 'request body', ctx.headers);
    }
    const parsed = parseFilterBody(entity, body);
    if (!parsed.ok) return invalid(parsed.details, 'request body', ctx.headers);
    return { spec: parsed.spec, body };
  }

  count(entity: Entity, params: URLSearchParams, rawBody: string, ctx: SearchContext): Reply {
    const q = parseSearchQuery(params, 'count');
    if (!q.ok) return invalid(q.details, 'query parameters', ctx.headers);
    const parsed = this.parse(entity, rawBody, ctx);
    if ('status' in parsed) return parsed;
    const total = this.total(this.matcher(entity, parsed.spec, bodyFingerprint(parsed.body)));
    return { status: 200, body: { total }, headers: ctx.headers };
  }

  search(entity: Entity, params: URLSearchParams, rawBody: string, ctx: SearchContext): Reply {
    const q = parseSearchQuery(params, entity);
    if (!q.ok) return invalid(q.details, 'query parameters', ctx.headers);
    const parsed = this.parse(entity, rawBody, ctx);
    if ('status' in parsed) return parsed;
    const fingerprint = bodyFingerprint(parsed.body);
    const query = q.query;
    let start = 0;
    let returned = 0;
    let epoch = this.live.epoch;
    let pageSize = query.limit;
    const m = this.matcher(entity, parsed.spec, fingerprint);
    if (query.cursor !== undefined) {
      const decoded = decodeCursor(this.options.cursorStyle, query.cursor);
      // Cursors are stateless and body-bound: the same cursor may be sent again, with another limit or view
      // (docs/api-assumptions.md). The fault emulates an API that accepts each cursor once.
      const resent = this.faults.refuseResentCursor && this.usedCursors.has(query.cursor);
      if (this.faults.refuseResentCursor) this.usedCursors.add(query.cursor);
      else this.usedCursors.clear();
      if (this.faults.take('forceInvalidCursor') || resent || !decoded.ok) {
        const why = decoded.ok
          ? 'is no longer valid'
          : decoded.reason === 'malformed'
            ? 'is malformed'
            : 'has an unsupported version';
        return coded(400, 'invalid_cursor', `cursor ${why}; restart from the first page`, ctx.headers);
      }
      if (decoded.state.fingerprint !== fingerprint) {
        return coded(
          400,
          'cursor_filter_mismatch',
          'the request body changed since the cursor was issued',
          ctx.headers,
        );
      }
      ({ slot: start, returned, epoch, pageSize } = decoded.state);
      // The stricter reading of the spec: a journey keeps the page size it opened with.
      if (this.faults.keepJourneyLimit) query.limit = pageSize;
    }
    const mode = this.faults.budgetMode(ctx.accountId);
    const admitted = this.budget.check(ctx.accountId, mode);
    if (!admitted.ok) {
      return {
        status: 402,
        body: {
          error: 'insufficient_budget',
          reason: admitted.reason,
          retryAfter: admitted.retryAfter,
          message: `search budget ${admitted.reason.replace('_', ' ')}`,
        },
        headers: { ...ctx.headers, ...admitted.headers },
      };
    }
    let page: { slots: number[]; page: Record<string, unknown> } | Reply;
    if (query.mode === 'offset') page = this.offsetPage(m, query, parsed.spec.sort);
    else {
      if (query.cursor !== undefined) {
        const churn = this.faults.churn;
        if (churn) {
          const touched = this.live.churn(
            m,
            this.live.resume(m, start, epoch),
            churn.insertPerPage,
            churn.removePerPage,
          );
          touched.inserted.forEach((id) => this.faults.recordChurn('inserted', id));
          touched.removed.forEach((id) => this.faults.recordChurn('removed', id));
        }
        start = this.live.resume(m, start, epoch);
      }
      page = this.cursorPage(m, query, { start, returned, pageSize }, fingerprint, ctx.headers);
    }
    if ('status' in page) return page;
    return this.deliver(entity, page.slots, page.page, query, ctx);
  }

  /**
   * Test control: makes `count` hidden person slots matching `rawBody` (any when empty) visible, as new persons
   * appearing between runs: chosen at random among the hidden ones (seeded: the same on every run of a test), or
   * spread evenly over the matching range. Returns their ids (fewer when the reserve is short).
   */
  /**
   * Sets a company's headcount (a test control: the company moves into or out of a filter between runs); false for
   * an unknown id.
   */
  setCompanyHeadcount(id: string, headcount: number): boolean {
    return this.setCompanyHeadcounts([{ id, headcount }]) === undefined;
  }

  /**
   * Sets the headcount of several companies at once, all or none: the first unknown id is returned and nothing
   * changes. Cached matchers hold bitmaps of the old values, so they are dropped.
   */
  setCompanyHeadcounts(moves: readonly { id: string; headcount: number }[]): string | undefined {
    const t = this.data.companies;
    const slots: number[] = [];
    for (const { id } of moves) {
      const slot = /^c_[0-9a-z]+$/.test(id) ? Number.parseInt(id.slice(2), 36) : -1;
      if (slot < 0 || slot >= t.slots || t.present[slot] === 0) return id;
      slots.push(slot);
    }
    moves.forEach((m, i) => {
      t.headcount[slots[i]!] = m.headcount;
    });
    this.matchers.clear();
    return undefined;
  }

  /** Company values changed under the cached matchers (index churn): they are dropped. */
  companiesChanged(): void {
    this.matchers.clear();
  }

  insertPersons(count: number, rawBody: string, spread: 'random' | 'even' = 'random'): string[] | ValidationDetail[] {
    let body: unknown;
    try {
      body = rawBody.trim() === '' ? {} : JSON.parse(rawBody);
    } catch {
      return [{ path: '', message: 'filter must be valid JSON' }];
    }
    const parsed = parseFilterBody('persons', body);
    if (!parsed.ok) return parsed.details;
    const m = compileMatcher(this.data, 'persons', parsed.spec);
    const present = this.data.persons.present;
    const candidates: number[] = [];
    for (let s = 0; s < this.data.persons.slots; s++)
      if (present[s] === 0 && m.matchesIgnoringPresence(s)) candidates.push(s);
    const take = Math.min(count, candidates.length);
    let chosen: number[];
    if (spread === 'even')
      chosen = Array.from({ length: take }, (_, i) => candidates[Math.floor(((i + 0.5) * candidates.length) / take)]!);
    else {
      const random = createPrng(this.data.seed ^ (0x1457 + this.live.epoch));
      for (let i = 0; i < take; i++) {
        const j = i + Math.floor(random() * (candidates.length - i));
        [candidates[i], candidates[j]] = [candidates[j]!, candidates[i]!];
      }
      chosen = candidates.slice(0, take).sort((a, b) => a - b);
    }
    return this.live.insert('persons', chosen);
  }

  private cursorPage(
    m: Matcher,
    query: SearchQuery,
    journey: { start: number; returned: number; pageSize: number },
    fingerprint: string,
    headers: Record<string, string>,
  ) {
    const { start, returned, pageSize } = journey;
    const slots: number[] = [];
    m.scan(start, query.limit + 1, slots);
    const hasMore = slots.length > query.limit;
    if (hasMore) slots.length = query.limit;
    if (returned + slots.length > this.options.journeyDepth) {
      return coded(
        422,
        'pagination_depth_exceeded',
        `a cursor journey cannot return more than ${this.options.journeyDepth} records; narrow the filter`,
        headers,
      );
    }
    const next = slots.length > 0 ? slots[slots.length - 1]! + 1 : start;
    const nextCursor = hasMore
      ? encodeCursor(this.options.cursorStyle, {
          slot: next,
          returned: returned + slots.length,
          epoch: this.live.epoch,
          fingerprint,
          pageSize,
        })
      : null;
    return { slots, page: { limit: query.limit, nextCursor, hasMore } };
  }

  private offsetPage(m: Matcher, query: SearchQuery, sort: SortField[]) {
    const total = this.total(m);
    let slots: number[];
    if (sort.length === 0 && !this.faults.offsetOrderDiffers) {
      slots = [];
      m.scan(m.stepForward(0, query.offset), query.limit, slots);
    } else if (sort.length === 0) {
      const all: number[] = [];
      m.scan(0, Number.MAX_SAFE_INTEGER, all);
      slots = all.reverse().slice(query.offset, query.offset + query.limit);
    } else {
      const all: number[] = [];
      m.scan(0, Number.MAX_SAFE_INTEGER, all);
      const keys = sort.map((s) => ({ key: this.sortKey(m.entity, s.field), dir: s.direction === 'ASC' ? 1 : -1 }));
      all.sort((a, b) => {
        for (const k of keys) {
          const d = k.key(a) - k.key(b);
          if (d !== 0) return d * k.dir;
        }
        return a - b;
      });
      slots = all.slice(query.offset, query.offset + query.limit);
    }
    return { slots, page: { limit: query.limit, offset: query.offset, total } };
  }

  private sortKey(entity: Entity, field: SortField['field']): (slot: number) => number {
    const column = field === 'headcount' ? this.data.companies.headcount : this.data.companies.revenue;
    if (entity === 'companies') return (s) => column[s]!;
    const company = this.data.persons.companySlot;
    return (s) => column[company[s]!]!;
  }

  private deliver(
    entity: Entity,
    slots: number[],
    page: Record<string, unknown>,
    query: SearchQuery,
    ctx: SearchContext,
  ): Reply {
    const style = this.options.recordStyle;
    const data = slots.map((s) =>
      styleRecord(
        entity === 'companies'
          ? renderCompany(this.data, s)
          : renderPerson(this.data, s, query.view, this.options.personCompany),
        style,
      ),
    );
    this.budget.charge(ctx.accountId, data.length);
    ctx.stats.tokensCharged += data.length;
    ctx.stats.recordsReturned += data.length;
    if (query.view.includes('contacts')) ctx.stats.creditsCharged += data.length;
    return { status: 200, body: { page, data }, headers: { ...ctx.headers, ...this.budget.headers(ctx.accountId) } };
  }
}
