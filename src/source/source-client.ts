/** Composes the source client: transport, token cache, governor, ledger, executor, journeys, partitioning. */
import { createHash } from 'node:crypto';
import { silentLogger, type Logger } from '../shared/logger.js';
import { joinUrl, resolvePaths, type ApiPaths } from './api-paths.js';
import { RedisBudgetLedger, type BudgetLedger } from './budget-ledger.js';
import { SourceProtocolError } from './errors.js';
import { dictionaryEntries, type DictionaryEntry } from './dictionary-entries.js';
import { HttpTransport } from './http-transport.js';
import { DEFAULT_RETRY, type RetryOptions } from './call-policy.js';
import { walkJourney, type JourneyContext, type JourneyOptions, type JourneyPage } from './journey.js';
import { DEFAULT_MAX_JOURNEY_RECORDS, Partitioner, type PartitionOptions } from './partitioner.js';
import { SearchTimings, type TimingSnapshot } from './search-timings.js';
import { ApiGovernor, type FallbackLimits, type GovernorOptions } from './rate-limit-headers.js';
import { emptyStats, RequestExecutor, type SourceStats } from './request-executor.js';
import { forecastReveal, type RevealPlan } from './reveal-planner.js';
import { ErasedPersons, type ErasedSet } from './erased-persons.js';
import { RevealLog } from './reveal-log.js';
import { RevealStore } from './reveal-store.js';
import { RunDedup } from './run-dedup.js';
import type { RevealRunInfo } from './page-request.js';
import { TokenProvider } from './token-provider.js';
import type { Entity, Filter, Operation } from './api-terms.js';
import type { Partition } from './partition-filter.js';
import type { Redis } from 'ioredis';

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
  /**
   * Contacts are revealed once per person; again after `refreshAfterDays` (default 180). Paid reveals are logged for
   * `logDays` (default 400).
   */
  reveal?: { refreshAfterDays?: number; logDays?: number };
  logger?: Logger;
  /** Per HTTP attempt. Default 30 s. */
  requestTimeoutMs?: number;
  retry?: Partial<RetryOptions>;
  governor?: GovernorOptions;
  /** Keep-alive connections per origin (at least the journeys walked at once). Default 16. */
  connections?: number;
}

export interface CallOptions {
  signal?: AbortSignal;
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
  /** Entries of a dictionary with their labels where the API gives them (any answer shape: dictionary-entries.ts). */
  dictionaryEntries(name: string, options?: CallOptions): Promise<DictionaryEntry[]>;
  /**
   * Exchanges the client credentials for a token (cached like any request's): SourceAuthError when refused. No search.
   */
  authenticate(options?: CallOptions): Promise<void>;
  /** Raw `data` of a settings endpoint. */
  settings(name: keyof ApiPaths['settings'], options?: CallOptions): Promise<unknown>;
  health(options?: CallOptions): Promise<unknown>;
  readonly ledger: BudgetLedger;
  readonly accountKey: string;
  stats(): SourceStats;
  /**
   * The limit the account's governor currently uses for `op` (learned from RateLimit-* headers, or the fallback); null
   * before any request.
   */
  rateLimit(op: Operation): Promise<{ limit: number; windowMs: number; mode: 'headers' | 'fallback' } | null>;
  /**
   * Registers a contacts run for reveal-once journeys and forecasts its credits and tokens from the search's last
   * run (`searchKey` names the search: its name and body). Call before walking. A dry run's journeys (`dryRun`)
   * never ask for contacts: they look each page up in the reveal store (the `revealForecast` stats) instead.
   */
  prepareReveal(
    runId: string,
    searchKey: string,
    walk: { counted: number; target: number; pageSize: number; journeys: number; deepRecords?: number },
    options?: { dryRun?: boolean; log?: { search: string; segment: string } },
  ): Promise<RevealPlan>;
  /**
   * Records that these persons' contacts were revealed (now, or at `atMs`); call once the CRM accepted the page that
   * carried them.
   */
  markRevealed(ids: readonly string[], atMs?: number): Promise<void>;
  /**
   * A page of run `runId`'s reveal-once journeys landed: its revealed persons are marked and its persons by reveal
   * day added to the search's tally (what `plan` forecasts the next run from). Never for a dry run.
   */
  bookReveals(runId: string, revealed: readonly string[], tally: ReadonlyMap<number, number>): Promise<void>;
  /** Persons erased on request (`forget`): a run never reveals nor writes them (src/source/erased-persons.ts). */
  erased(): Promise<ErasedSet>;
  /** Latency (p90) and governor wait (p50) of this client's last 64 search requests. */
  searchTimings(): TimingSnapshot;
  /** Beats for a run walking on the account (active for `ttlMs`); returns how many walk now, itself included. */
  heartbeat(member: string, ttlMs: number): Promise<number>;
  /** The run stops walking on the account (the others see it at their next heartbeat). */
  leave(member: string): Promise<void>;
  /** Forgets the run's registration and its dedup set in memory, if its journeys used it (call when a run ends). */
  endRun(runId: string): void;
  close(): Promise<void>;
}

/** Shared-state namespace of an account: never derived from the secret. */
export function defaultAccountKey(baseUrl: string, clientId: string): string {
  return createHash('sha256').update(`${baseUrl}\n${clientId}`).digest('hex').slice(0, 16);
}

function dataOf(body: unknown, what: string): unknown {
  const data = (body as { data?: unknown } | null)?.data;
  if (data === undefined) throw new SourceProtocolError(`the ${what} answer lacks \`data\``);
  return data;
}

/** Contacts revealed longer ago than this are revealed again (config `reveal.refreshAfterDays`). */
export const DEFAULT_REFRESH_AFTER_DAYS = 180;

export function createSourceClient(options: SourceClientOptions): SourceClient {
  const logger = options.logger ?? silentLogger;
  const paths = resolvePaths(options.paths);
  const accountKey = options.accountKey ?? defaultAccountKey(options.baseUrl, options.auth.clientId);
  const prefix = options.keyPrefix ?? 'prospect-sync';
  const keyBase = `${prefix}:source:${accountKey}`;
  const http = new HttpTransport(options.requestTimeoutMs ?? 30_000, options.connections ?? 16);
  const timings = new SearchTimings();
  const tokens = new TokenProvider(
    http,
    new URL(options.auth.tokenUrl),
    options.auth.clientId,
    options.auth.clientSecret,
  );
  const governor = new ApiGovernor(options.redis, prefix, accountKey, options.fallbackLimits, options.governor);
  const ledger = new RedisBudgetLedger(options.redis, keyBase, options.tokens?.reserve ?? 0, options.credits ?? {});
  const stats = emptyStats();
  const executor = new RequestExecutor(
    http,
    tokens,
    governor,
    ledger,
    { ...DEFAULT_RETRY, ...options.retry },
    stats,
    logger,
    timings,
  );
  const dedup = new RunDedup();
  const reveals = new RevealStore(
    options.redis,
    keyBase,
    options.reveal?.refreshAfterDays ?? DEFAULT_REFRESH_AFTER_DAYS,
  );
  const revealLog = new RevealLog(options.redis, keyBase, options.reveal?.logDays);
  const revealRuns = new Map<string, RevealRunInfo>();
  const ctx: JourneyContext = {
    baseUrl: options.baseUrl,
    paths,
    executor,
    ledger,
    dedup,
    stats,
    logger,
    reveals,
    revealRuns,
    revealLog,
  };

  const count = async (entity: Entity, filter: Filter, call?: CallOptions): Promise<number> => {
    const res = await executor.execute({
      method: 'POST',
      url: joinUrl(options.baseUrl, paths.count[entity]),
      body: JSON.stringify(filter),
      operation: 'count',
      signal: call?.signal,
    });
    const total = (res.body as { total?: unknown } | null)?.total;
    if (typeof total !== 'number') throw new SourceProtocolError('the count answer lacks a numeric `total`');
    return total;
  };

  const get = async (path: string, operation: 'dictionary' | undefined, call?: CallOptions): Promise<unknown> =>
    (await executor.execute({ method: 'GET', url: joinUrl(options.baseUrl, path), operation, signal: call?.signal }))
      .body;

  const entries = async (name: string, call?: CallOptions): Promise<DictionaryEntry[]> =>
    dictionaryEntries(
      await get(paths.dictionaries.replace('{name}', encodeURIComponent(name)), 'dictionary', call),
      name,
    );
  const dictionary = async (name: string, call?: CallOptions): Promise<string[]> =>
    (await entries(name, call)).map((e) => e.value);

  const partitioner = (entity: Entity, signal?: AbortSignal): Partitioner =>
    new Partitioner({
      count: (filter) => count(entity, filter, { signal }),
      dictionary: (name) => dictionary(name, { signal }),
    });

  return {
    accountKey,
    ledger,
    count,
    journey: (entity, filter, journeyOptions) => walkJourney(ctx, entity, filter, journeyOptions),
    partition: (entity, filter, partitionOptions) =>
      partitioner(entity, partitionOptions?.signal).partition(filter, partitionOptions),
    splitPartition: (entity: Entity, partition: Partition, partitionOptions?: PartitionOptions) => {
      // at least two pieces, each under the depth
      const max = Math.min(
        partitionOptions?.maxJourneyRecords ?? DEFAULT_MAX_JOURNEY_RECORDS,
        Math.max(1, Math.ceil(partition.count / 2)),
      );
      return partitioner(entity, partitionOptions?.signal).partition(partition.filter, {
        ...partitionOptions,
        maxJourneyRecords: max,
        pieceRecords: max,
      });
    },
    dictionary,
    authenticate: async (call) => {
      await tokens.get(call?.signal);
    },
    dictionaryEntries: entries,
    settings: async (name, call) => dataOf(await get(paths.settings[name], 'dictionary', call), 'settings'),
    health: (call) => get(paths.health, undefined, call),
    stats: () => structuredClone(stats),
    rateLimit: (op) => governor.current(op),
    prepareReveal: async (runId, searchKey, walk, prepare) => {
      // Persons the search's last run saw whose reveal is still fresh: what this run will not pay for again.
      const last = await reveals.lastTally(searchKey);
      const today = reveals.today();
      const fresh =
        last === null ? null : [...last.byDay].reduce((n, [day, c]) => (reveals.isFresh(day, today) ? n + c : n), 0);
      const plan = forecastReveal({ ...walk, fresh });
      revealRuns.set(runId, {
        searchKey,
        newShare: plan.newShare,
        ...(prepare?.dryRun ? { forecastOnly: true } : {}),
        ...(prepare?.log ? { log: prepare.log } : {}),
      });
      return plan;
    },
    markRevealed: (ids, atMs) => reveals.mark(ids, atMs),
    bookReveals: async (runId, revealed, tally) => {
      const run = revealRuns.get(runId);
      if (run?.forecastOnly) return;
      await reveals.mark(revealed);
      if (run && tally.size > 0) await reveals.tally(run.searchKey, runId, tally);
    },
    erased: () => new ErasedPersons(options.redis, prefix).load(),
    endRun: (runId) => {
      dedup.end(runId);
      revealRuns.delete(runId);
    },
    searchTimings: () => timings.snapshot(),
    // Runs share the search allowance: each sizes its journeys for its share of it.
    heartbeat: (member, ttlMs) => governor.heartbeat('search', member, ttlMs),
    leave: (member) => governor.leave('search', member),
    close: () => http.close(),
  };
}
