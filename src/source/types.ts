/**
 * Public types of the Sales-Intelligence source client. Stable: the orchestration layer codes against them.
 * Every "not shown" choice of the API spec is configuration here (defaults in docs/api-assumptions.md).
 */
import type { Redis } from 'ioredis';
import type { Logger } from '../shared/logger.js';
import type { TimingSnapshot } from './search-timings.js';
import type { RecordQuota } from './record-quota.js';

export type Entity = 'companies' | 'persons';
/** Rate-limit operations of the API: each has its own window. */
export type Operation = 'search' | 'count' | 'dictionary';

/** A request body: `{company: {...}, person: {...}, options: {...}}`, passed through as written. */
export type Filter = Record<string, unknown>;

/** Paths relative to `baseUrl` (which may carry a prefix such as `/api/v2`). */
export interface ApiPaths {
  search: Record<Entity, string>;
  count: Record<Entity, string>;
  /** Template with `{name}`. */
  dictionaries: string;
  settings: { compliance: string; personalization: string; intentTopics: string };
  health: string;
}

export interface RetryOptions {
  /** Attempts for 5xx / network errors / 402 stale_reset + store_unavailable, first one included. */
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** Attempts after a 429 (the governor should make these rare). */
  maxRateLimitAttempts: number;
  /** Upper bound of a Retry-After we honour (the spec promises <= 60 s). */
  maxRetryAfterSeconds: number;
}

export interface FallbackLimits {
  search: number;
  count: number;
  dictionary: number;
  windowSeconds: number;
}

export interface GovernorOptions {
  /**
   * Extra time added to the window when spacing requests, covering the delay between our grant and the server's
   * clock. Default: 2% of the window, clamped to 100..1000 ms.
   */
  guardMs?: number;
  /** Share of the configured fallback limit used while RateLimit-* headers are absent. Default 0.9. */
  fallbackShare?: number;
}

export interface SourceClientOptions {
  baseUrl: string;
  auth: { tokenUrl: string; clientId: string; clientSecret: string };
  paths?: Partial<ApiPaths>;
  /** Shared governor / ledger state. The client never closes it. */
  redis: Redis;
  /** Default 'prospect-sync'. */
  keyPrefix?: string;
  /** Namespace of shared state; default a hash of baseUrl + clientId (never the secret). */
  accountKey?: string;
  fallbackLimits: FallbackLimits;
  /** Never spend the search-token balance below `reserve`. */
  tokens?: { reserve?: number };
  credits?: { maxPerRun?: number; maxPerDay?: number };
  /** Contacts are revealed once per person; again after `refreshAfterDays` (default 180). */
  reveal?: { refreshAfterDays?: number };
  logger?: Logger;
  /** Per HTTP attempt. Default 30 s. */
  requestTimeoutMs?: number;
  retry?: Partial<RetryOptions>;
  governor?: GovernorOptions;
  /** Keep-alive connections per origin (at least the journeys walked at once). Default 16. */
  connections?: number;
}

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
}

export interface JourneyOptions {
  runId: string;
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
}

export interface JourneyPage {
  /** Records of this page not seen before in this run (deduplicated by id). */
  records: unknown[];
  /** Records the API returned on this page (what it charged tokens for). */
  returned: number;
  /** Duplicates dropped from this page. */
  duplicates: number;
  /** State after this page: save it to resume. */
  checkpoint: JourneyCheckpoint;
  tokensCharged: number;
  creditsCharged: number;
  /** `page.total` in offset mode. */
  total?: number;
  /** True when the journey had to restart from page 1 (invalid_cursor) before this page. */
  restarted: boolean;
  done: boolean;
  /** Reveal-once journeys: ids whose contacts this page revealed; pass them to `markRevealed` once the CRM holds them. */
  revealed?: string[];
  /** Reveal-once journeys: persons passed by without a reveal (revealed before and still fresh). */
  revealSkipped?: number;
  /** The API refused a re-sent cursor: this journey reveals whole pages from here on. */
  revealFallback?: boolean;
}

/** What `prepareReveal` expects a run to spend (see reveal-planner.ts for the method). */
export interface RevealPlan {
  newShare: number;
  credits: number;
  revealSkipped: number;
  tokens: number;
  method: 'first-run' | 'last-run-tally';
}

/** A filter narrowed by headcount (and possibly country) whose journey stays under the depth limit. */
export interface Partition {
  filter: Filter;
  /** Free count at planning time. */
  count: number;
  headcount: { gte: number; lte: number };
  /** Set when one headcount value was split further by country. */
  countries?: string[];
}

/** A headcount range of the filter being split, with its free count (the top one of an open filter holds what lies above). */
export interface PieceRange {
  gte: number;
  lte: number;
  count: number;
  /** One headcount value cut further by country: the countries this piece holds (absent: all the filter's). */
  countries?: string[];
}

/** Where a split stands (PartitionOptions.onProgress): newly settled partitions, pieces still to cut, counts left. */
export interface PartitionProgress {
  settled: Partition[];
  pending: PieceRange[];
  countsLeft: number;
}

export interface PartitionOptions {
  /** Default 90,000 (the API stops journeys at 100,000). */
  maxJourneyRecords?: number;
  /** Aim for at least this many partitions of similar size. Default 1. */
  parallelism?: number;
  /**
   * Many pieces, largest first, instead of `parallelism` similar groups (src/source/partitioner.ts): pieces above
   * it are cut while `maxCounts` allows; with `journeys`, only those larger than the records after them / journeys.
   */
  pieceRecords?: number;
  /** With `pieceRecords`: the journeys expected to walk at once ("guided" sizes, large first, small last). */
  journeys?: number;
  /** With `pieceRecords`: the filter's free count when the caller has it (saves one count). */
  total?: number;
  /** With `pieceRecords`: count requests the split may spend (pieces over the journey depth are split regardless). */
  maxCounts?: number;
  /**
   * With `pieceRecords`: told before each round of counts which partitions are settled (never cut again: a walk may
   * start them while the rest is cut) and which pieces are still to cut; once more at the end with `pending` empty.
   */
  onProgress?: (progress: PartitionProgress) => void;
  /** With `pieceRecords`: go on with a split cut short (its last progress), instead of starting from the whole filter. */
  resume?: { pending: PieceRange[]; settledCounts: number[] };
  /** Headcount upper bound when the filter has none. Default 10,000,000. */
  maxHeadcount?: number;
  /** Dictionary used to split a single headcount value that is still too deep. Default 'country'. */
  secondKeyDictionary?: string;
  signal?: AbortSignal;
}

export interface TokenBalance {
  limit: number;
  remaining: number;
  /** Epoch ms of the next period reset. */
  resetAt: number;
  observedAt: number;
}

export interface CreditUsage {
  run: number;
  day: number;
  account: number;
  maxPerRun: number | null;
  maxPerDay: number | null;
}

export interface SourceStats {
  requests: { search: number; count: number; dictionary: number; token: number; other: number };
  /** 429 responses received. */
  throttled: number;
  retries: number;
  unauthorizedRetries: number;
  tokensSpent: number;
  creditsSpent: number;
  recordsReturned: number;
  duplicatesDropped: number;
  journeyRestarts: number;
  /** Persons whose contacts were paid for (reveal-once journeys). */
  personsRevealed: number;
  /** Persons passed by without a reveal: revealed before and still fresh. */
  revealSkipped: number;
  /** Unrevealed persons left unrevealed because the API refused a re-sent cursor. */
  revealMissed: number;
  /** Journeys that fell back to revealing whole pages (the API refused a re-sent cursor). */
  revealFallbacks: number;
  /** Journeys whose reveal by offset answered other persons than the walk (they position cursors instead). */
  revealOffsetMismatches: number;
}

export interface CallOptions {
  signal?: AbortSignal;
}

/** Search tokens and credits of the account, shared by every process through Redis. */
export interface BudgetLedger {
  /** Last balance the API reported (X-Rate-Results-*), or null before the first search. */
  tokenBalance(): Promise<TokenBalance | null>;
  /** Tokens a new search may spend now: balance - reserve - in-flight reservations (Infinity when unknown). */
  spendableTokens(): Promise<number>;
  creditUsage(runId: string): Promise<CreditUsage>;
  /** Credits a run may still spend under maxPerRun and maxPerDay (Infinity when uncapped). */
  spendableCredits(runId: string): Promise<number>;
  /** The same, with the cap that binds (the smaller remaining of run and day; run on ties), null when uncapped. */
  creditHeadroom(runId: string): Promise<{ spendable: number; binding: 'credit_cap_run' | 'credit_cap_day' | null }>;
}

export interface SourceClient {
  /** Free count of the records matching `filter`. */
  count(entity: Entity, filter: Filter, options?: CallOptions): Promise<number>;
  /** Pages of one body, cursor mode by default; resumes from `options.checkpoint`. */
  journey(entity: Entity, filter: Filter, options: JourneyOptions): AsyncIterable<JourneyPage>;
  /** Splits `filter` by company.headcount (then country) so each journey stays under the depth limit. */
  partition(entity: Entity, filter: Filter, options?: PartitionOptions): Promise<Partition[]>;
  /** Splits a partition that hit 422 mid-walk into smaller ones (walk them from page 1; dedup makes it safe). */
  splitPartition(entity: Entity, partition: Partition, options?: PartitionOptions): Promise<Partition[]>;
  /** Values of a dictionary (`industry`, `country`, ...). */
  dictionary(name: string, options?: CallOptions): Promise<string[]>;
  /** Raw `data` of a settings endpoint. */
  settings(name: keyof ApiPaths['settings'], options?: CallOptions): Promise<unknown>;
  health(options?: CallOptions): Promise<unknown>;
  readonly ledger: BudgetLedger;
  readonly accountKey: string;
  stats(): SourceStats;
  /** The limit the account's governor currently uses for `op` (learned from RateLimit-* headers, or the fallback); null before any request. */
  rateLimit(op: Operation): Promise<{ limit: number; windowMs: number; mode: 'headers' | 'fallback' } | null>;
  /**
   * Registers a contacts run for reveal-once journeys and forecasts its credits and tokens from the search's last
   * run (`searchKey` names the search: its name and body). Call before walking.
   */
  prepareReveal(runId: string, searchKey: string, walk: { counted: number; target: number; pageSize: number; journeys: number; deepRecords?: number }): Promise<RevealPlan>;
  /** Records that these persons' contacts were revealed (now, or at `atMs`); call once the CRM accepted the page that carried them. */
  markRevealed(ids: readonly string[], atMs?: number): Promise<void>;
  /** Latency (p90) and governor wait (p50) of this client's last 64 search requests. */
  searchTimings(): TimingSnapshot;
  /** Beats for a run walking on the account (active for `ttlMs`); returns how many walk now, itself included. */
  heartbeat(member: string, ttlMs: number): Promise<number>;
  /** The run stops walking on the account (the others see it at their next heartbeat). */
  leave(member: string): Promise<void>;
  /** Forgets the run's dedup set (call when a run ends). */
  endRun(runId: string): void;
  close(): Promise<void>;
}
