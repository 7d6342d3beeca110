/** Public options and handle of the Sales-Intelligence API emulator (see docs/api-assumptions.md). */
import type { Logger } from '../../shared/logger.js';

export type RateOperation = 'search' | 'count' | 'dictionary';

export type BudgetMode = 'normal' | 'stale_reset' | 'store_unavailable';

export type RecordStyle = 'camel' | 'snake';

export type CursorStyle = 'json-v1' | 'compact-v2';

/** Route names used by per-route fault scripts and stats. */
export type EmulatorRoute =
  | 'token'
  | 'companies.search'
  | 'persons.search'
  | 'companies.count'
  | 'persons.count'
  | 'dictionary'
  | 'settings'
  | 'health';

export interface EmulatorAccount {
  clientId: string;
  clientSecret: string;
  accountId: string;
  /** Requests per window per operation (the account's package); default 500 each. */
  limits?: Partial<Record<RateOperation, number>>;
  /** Search tokens per period; default 1,000,000,000. */
  tokenAllotment?: number;
  /** Budget period length; default 30 days. */
  tokenPeriodSeconds?: number;
}

/** How `RateLimit-Reset` is rounded: the spec does not say, so both readings are served. */
export type ResetRounding = 'up' | 'down';

export interface SalesIntelEmulatorOptions {
  /** Default 0 (any free port). */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Path prefix of every route incl. /oauth/token and /__emulator, e.g. '/api/v2'. Default ''. */
  basePath?: string;
  /** Data seed; default 1. */
  seed?: number;
  /** Number of companies; default 10,000, at most 1,000,000. */
  companies?: number;
  /** Number of persons; default 50,000, at most 5,000,000. */
  persons?: number;
  /**
   * The clock of the search-token period (epoch ms); default Date.now. A benchmark that simulates the worker's time
   * keeps the period on this clock, so the reset the API reports in seconds lands where it set it.
   */
  tokenClock?: () => number;
  /**
   * Hidden reserve persons that `insertPersons` can make visible: every 65th slot by default (~1.5%); another n hides 1
   * in n slots at random.
   */
  personReserveEvery?: number;
  /** The same for companies (the reserve `churnCompanies` enters new companies from). */
  companyReserveEvery?: number;
  /** Default: one account {clientId:'demo-client', clientSecret:'demo-secret', accountId:'demo'}. */
  accounts?: EmulatorAccount[];
  /** Rate-limit window length in seconds (may be fractional in tests); default 60. */
  windowSeconds?: number;
  /** How RateLimit-Reset's seconds are rounded (the spec does not say): 'up' (default) or 'down'. */
  resetRounding?: ResetRounding;
  /** OAuth token lifetime in seconds; default 3600. */
  tokenLifetimeSeconds?: number;
  /** 'snake' renames record fields (company_id, job_title, ...). Default 'camel'. */
  recordStyle?: RecordStyle;
  /** Two different opaque cursor encodings. Default 'json-v1'. */
  cursorStyle?: CursorStyle;
  /**
   * Person records carry their company as `company: {id, name, domain}` (the spec shows no field of a person
   * record; some APIs nest the company). Default false: `companyId` only.
   */
  personCompany?: boolean;
  /**
   * Records one cursor journey may return before its 422 `pagination_depth_exceeded`; default the API's 100,000.
   * Lower in tests that need a journey past the depth without walking 100,000 records.
   */
  journeyDepth?: number;
  /**
   * Shape of a dictionary answer (the spec does not show it): 'data' = `{data: [{value, label}]}` (default);
   * 'values' = `{dictionary, values: [{code, label}]}`.
   */
  dictionaryStyle?: 'data' | 'values';
  /** false: no /settings/* routes at all (404, as an implementation of the spec, which names none, may answer). */
  settingsRoutes?: boolean;
  /** Initial faults. */
  faults?: EmulatorFaultsInit;
  /** Where internal emulator errors (answered 500) are logged; default silent. */
  logger?: Logger;
}

export interface LatencyFault {
  fixedMs: number;
  jitterMs: number;
}

export interface ServerErrorFault {
  /** Share of requests (0..1) answered with 500/503 (deterministic PRNG). */
  share?: number;
  /** Scripted statuses consumed one per request; 200 (or any < 500) means "serve normally". */
  sequence?: number[];
  /** Restrict to these routes; default every route but health and token. */
  routes?: EmulatorRoute[];
}

export interface ChurnFault {
  /** Applied before every cursor page after the first (page index >= 1) of any journey. */
  insertPerPage: number;
  removePerPage: number;
}

/** What churn did so far; ids in the emulator's record-id form (c_… / p_…). */
export interface ChurnLog {
  inserted: string[];
  removed: string[];
}

/** JSON-serialisable form accepted by `faults.set()` and POST /__emulator/faults. */
export interface EmulatorFaultsInit {
  latency?: LatencyFault | null;
  serverErrors?: ServerErrorFault | null;
  /** Next N rate-limited requests answer 429 (any operation). */
  force429?: number;
  /** Next N requests carrying a cursor answer 400 invalid_cursor. */
  forceInvalidCursor?: number;
  /**
   * Every cursor is accepted once: sending one again answers 400 invalid_cursor (an API that breaks our assumption).
   */
  refuseResentCursor?: boolean;
  /**
   * Offset pages without `sortFields` come in another order than cursor pages (reversed): an API whose offset walk
   * is not its cursor walk, which breaks the worker's reveal-by-offset assumption.
   */
  offsetOrderDiffers?: boolean;
  /**
   * A cursor page's size is its journey's first `limit` (a different `limit` on a later page is ignored and
   * `page.limit` says the size in force): the stricter reading of the spec, on by default; false serves each
   * page's own `limit`.
   */
  keepJourneyLimit?: boolean;
  /** Every token issued so far expires after N more authenticated requests. */
  expireTokensAfter?: number | null;
  churn?: ChurnFault | null;
  /** Limiter store down: requests pass, RateLimit-* headers omitted. */
  limiterDown?: boolean;
  /** The health probe answers 503 (readiness checks). */
  healthDown?: boolean;
  /** Budget mode per accountId. */
  budgetMode?: Record<string, BudgetMode>;
  /**
   * The next `times` 200 search answers are bent: `nextCursor` replaced, and/or `padBytes` of filler sent chunked (no
   * Content-Length).
   */
  bentPages?: BentPagesFault | null;
}

export interface BentPagesFault {
  times: number;
  nextCursor?: string;
  padBytes?: number;
}

export interface EmulatorFaults {
  /** Merge the given switches into the current ones (null clears one). */
  set(faults: EmulatorFaultsInit): void;
  /** Clear every fault and the churn log. */
  clear(): void;
  /** Current switches. */
  current(): Required<EmulatorFaultsInit>;
  /** Ids inserted/removed by churn so far. */
  churnLog(): ChurnLog;
}

export interface EmulatorStats {
  /** Requests per route (authenticated routes counted after auth). */
  requests: Record<EmulatorRoute, number>;
  /** Requests per rate-limit operation (admitted or not). */
  operations: Record<RateOperation, number>;
  served429: Record<RateOperation, number>;
  /** Highest request count of any one rate-limit window per operation (refused requests included). */
  peakPerWindow: Record<RateOperation, number>;
  /** Most requests of an operation under way at once (the emulated latency included). */
  peakInFlight: Record<RateOperation, number>;
  served402: number;
  served401: number;
  served5xx: number;
  served400: number;
  served422: number;
  tokensCharged: number;
  creditsCharged: number;
  /** Records returned by searches. */
  recordsReturned: number;
}

export type ChurnKind = 'changed' | 'left' | 'entered';

/** One company touched by a step of index churn (`churnCompanies`). */
export interface ChurnedCompany {
  id: string;
  change: ChurnKind;
  /** The headcount after the change. */
  headcount: number;
  /** Names of the given filters the company matches after the change (for one that left: the ones it matched). */
  matches: string[];
}

export interface SalesIntelEmulator {
  /** Base URL incl. basePath, no trailing slash. */
  url: string;
  tokenUrl: string;
  port: number;
  close(): Promise<void>;
  faults: EmulatorFaults;
  /** Stats of one account, or summed over all accounts. */
  stats(accountId?: string): EmulatorStats;
  resetStats(): void;
  setTokenBalance(accountId: string, remaining: number, resetInSeconds?: number): void;
  /** Every issued access token now answers 401. */
  expireAllTokens(): void;
  /**
   * Makes up to `count` hidden persons matching `filter` (a persons search body; default any) visible: new persons
   * between two runs, placed at random (seeded) or `even`ly over the matching range. Returns their ids.
   */
  insertPersons(count: number, filter?: Record<string, unknown>, spread?: 'random' | 'even'): string[];
  /**
   * Sets a company's headcount so it moves into or out of filters between runs; throws RangeError for an unknown id.
   */
  setCompanyHeadcount(id: string, headcount: number): void;
  /**
   * The same for many companies at once (a bench moves thousands between runs); all or none: an unknown id throws
   * RangeError and moves nobody.
   */
  setCompanyHeadcounts(moves: readonly { id: string; headcount: number }[]): void;
  /**
   * Index churn between runs: round(visible × share) companies, a third each change their headcount, leave, or enter
   * from the reserve, drawn from `seed`; each with the names of `filters` (company search bodies) it matches.
   * Throws RangeError for an invalid filter.
   */
  churnCompanies(share: number, seed: number, filters?: Record<string, unknown>): ChurnedCompany[];
}
