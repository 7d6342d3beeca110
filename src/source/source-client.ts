/** Composes the source client: transport, token cache, governor, ledger, executor, journeys, partitioning. */
import { createHash } from 'node:crypto';
import { silentLogger } from '../shared/logger.js';
import { joinUrl, resolvePaths } from './api-paths.js';
import { RedisBudgetLedger } from './budget-ledger.js';
import { SourceProtocolError } from './errors.js';
import { HttpTransport } from './http-transport.js';
import { DEFAULT_RETRY } from './call-policy.js';
import { walkJourney, type JourneyContext } from './journey.js';
import { DEFAULT_MAX_JOURNEY_RECORDS, Partitioner } from './partitioner.js';
import { SearchTimings } from './search-timings.js';
import { ApiGovernor } from './rate-limit-headers.js';
import { emptyStats, RequestExecutor } from './request-executor.js';
import { forecastReveal } from './reveal-planner.js';
import { RevealStore } from './reveal-store.js';
import { RunDedup } from './run-dedup.js';
import type { RevealRunInfo } from './page-request.js';
import { TokenProvider } from './token-provider.js';
import type { CallOptions, Entity, Filter, Partition, PartitionOptions, SourceClient, SourceClientOptions } from './types.js';

/** Shared-state namespace of an account: never derived from the secret. */
function defaultAccountKey(baseUrl: string, clientId: string): string {
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
  const tokens = new TokenProvider(http, new URL(options.auth.tokenUrl), options.auth.clientId, options.auth.clientSecret);
  const governor = new ApiGovernor(options.redis, prefix, accountKey, options.fallbackLimits, options.governor);
  const ledger = new RedisBudgetLedger(options.redis, keyBase, options.tokens?.reserve ?? 0, options.credits ?? {});
  const stats = emptyStats();
  const executor = new RequestExecutor(http, tokens, governor, ledger, { ...DEFAULT_RETRY, ...options.retry }, stats, logger, timings);
  const dedup = new RunDedup();
  const reveals = new RevealStore(options.redis, keyBase, options.reveal?.refreshAfterDays ?? DEFAULT_REFRESH_AFTER_DAYS);
  const revealRuns = new Map<string, RevealRunInfo>();
  const ctx: JourneyContext = { baseUrl: options.baseUrl, paths, executor, ledger, dedup, stats, logger, reveals, revealRuns };

  const count = async (entity: Entity, filter: Filter, call?: CallOptions): Promise<number> => {
    const res = await executor.execute({
      method: 'POST', url: joinUrl(options.baseUrl, paths.count[entity]), body: JSON.stringify(filter), operation: 'count', signal: call?.signal,
    });
    const total = (res.body as { total?: unknown } | null)?.total;
    if (typeof total !== 'number') throw new SourceProtocolError('the count answer lacks a numeric `total`');
    return total;
  };

  const get = async (path: string, operation: 'dictionary' | undefined, call?: CallOptions): Promise<unknown> =>
    (await executor.execute({ method: 'GET', url: joinUrl(options.baseUrl, path), operation, signal: call?.signal })).body;

  const dictionary = async (name: string, call?: CallOptions): Promise<string[]> => {
    const data = dataOf(await get(paths.dictionaries.replace('{name}', encodeURIComponent(name)), 'dictionary', call), 'dictionary');
    if (!Array.isArray(data)) throw new SourceProtocolError('the dictionary answer is not a list');
    return data.map((entry) => (typeof entry === 'string' ? entry : String((entry as { value?: unknown }).value)));
  };

  const partitioner = (entity: Entity, signal?: AbortSignal): Partitioner =>
    new Partitioner({ count: (filter) => count(entity, filter, { signal }), dictionary: (name) => dictionary(name, { signal }) });

  return {
    accountKey,
    ledger,
    count,
    journey: (entity, filter, journeyOptions) => walkJourney(ctx, entity, filter, journeyOptions),
    partition: (entity, filter, partitionOptions) => partitioner(entity, partitionOptions?.signal).partition(filter, partitionOptions),
    splitPartition: (entity: Entity, partition: Partition, partitionOptions?: PartitionOptions) => {
      const max = Math.min(partitionOptions?.maxJourneyRecords ?? DEFAULT_MAX_JOURNEY_RECORDS, Math.max(1, Math.ceil(partition.count / 2)));
      return partitioner(entity, partitionOptions?.signal).partition(partition.filter, { ...partitionOptions, maxJourneyRecords: max, parallelism: 2 });
    },
    dictionary,
    settings: async (name, call) => dataOf(await get(paths.settings[name], 'dictionary', call), 'settings'),
    health: (call) => get(paths.health, undefined, call),
    stats: () => structuredClone(stats),
    rateLimit: (op) => governor.current(op),
    prepareReveal: async (runId, searchKey, walk) => {
      // Persons the search's last run saw whose reveal is still fresh: what this run will not pay for again.
      const last = await reveals.lastTally(searchKey);
      const today = reveals.today();
      const fresh = last === null ? null : [...last.byDay].reduce((n, [day, c]) => (reveals.isFresh(day, today) ? n + c : n), 0);
      const plan = forecastReveal({ ...walk, fresh });
      revealRuns.set(runId, { searchKey, newShare: plan.newShare });
      return plan;
    },
    markRevealed: (ids, atMs) => reveals.mark(ids, atMs),
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
