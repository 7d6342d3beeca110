import type { Redis } from 'ioredis';
import { silentLogger, type Logger } from '../../shared/logger.js';
import { RateGovernor } from '../../shared/rate-governor.js';
import { chunks } from '../chunks.js';
import type {
  ArchiveResult,
  CrmSink,
  CrmValue,
  EraseMode,
  ListPort,
  ObjectTarget,
  UpsertOutcome,
} from '../crm-sink.js';
import { linkToCompanies } from './hubspot-associations.js';
import { createHubSpotCaller } from './hubspot-caller.js';
import { createHubSpotClient } from './hubspot-client.js';
import { CrmDailyLimitError } from '../errors.js';
import { HUBSPOT_OPERATION, type RetryOptions } from './hubspot-call-policy.js';
import { hubspotPortalId } from './hubspot-identity.js';
import {
  boundedLimit,
  HUBSPOT_ASSUMED_PER_10S,
  HUBSPOT_BATCH_SIZE,
  hubspotCeiling,
  hubspotGovernorAccount,
} from './hubspot-limits.js';
import { archiveByKey } from './hubspot-archive.js';
import { gdprDeleteByKey } from './hubspot-gdpr-delete.js';
import { createHubSpotLists } from './hubspot-lists.js';
import { optedOutKeys } from './hubspot-opt-outs.js';
import { readByKey } from './hubspot-read.js';
import { prepareTarget } from './hubspot-schema.js';
import { cachedPreflight, preflightKey } from '../preflight-cache.js';
import { hubspotDayFields, preflightHubSpot } from './hubspot-preflight.js';
import { upsertBatch } from './hubspot-upsert.js';
import { withAnswered } from '../write-result.js';

export interface HubSpotSinkOptions {
  accessToken: string;
  /** e.g. `https://api.hubapi.com` or an emulator URL; a trailing slash is removed. */
  baseUrl: string;
  /**
   * Config `requestsPer10s`: the assumed limit before the portal's first answer and an upper bound of what its
   * X-HubSpot-RateLimit-Max teaches. Absent: 100 (the lowest tier) until the first answer, then the answered Max.
   */
  requestsPer10s?: number;
  /** Where the portal's rate governor keeps its state, shared by every run and process writing to the portal. */
  redis: Redis;
  /** Key prefix of that state (the app's Redis prefix); keys live under `<keyPrefix>:gov:hubspot:<portal>:`. */
  keyPrefix: string;
  /**
   * Governor label of the portal (e.g. the portal id). Default: a short hash of the base URL and token, never the
   * token.
   */
  portalKey?: string;
  /** Deadline of one request, headers and whole body (default 30 s); combined with the run's signal. */
  requestTimeoutMs?: number;
  /** Tests shorten backoff. */
  retry?: Partial<RetryOptions>;
  logger?: Logger;
}

export interface HubSpotSink extends CrmSink {
  /** 429 answers received so far (each was waited out and retried). */
  readonly throttled: number;
  /** Records per second the portal takes now: its learned limit (before any answer: the assumed one) × a batch. */
  ceiling(): number;
  /** `hubspot:<portalId>` from the account-info API. */
  identity(options?: { signal?: AbortSignal }): Promise<string>;
  /** The portal's MANUAL lists (Lists v3), through the same governor and call policy. */
  readonly lists: ListPort;
  archive(target: ObjectTarget, keys: readonly string[], options?: { signal?: AbortSignal }): Promise<ArchiveResult>;
  optedOut(
    target: ObjectTarget,
    fields: readonly string[],
    options?: { signal?: AbortSignal },
  ): AsyncIterable<string[]>;
  erase(
    target: ObjectTarget,
    keys: readonly string[],
    how: EraseMode,
    options?: { signal?: AbortSignal },
  ): Promise<ArchiveResult>;
}

export function createHubSpotSink(options: HubSpotSinkOptions): HubSpotSink {
  const log = options.logger ?? silentLogger;
  const { client, close } = createHubSpotClient(options.accessToken, options.baseUrl);
  const portal = options.portalKey ?? hubspotGovernorAccount(options.baseUrl, options.accessToken);
  const bound = options.requestsPer10s;
  let limit: { limit: number; windowMs: number } = { limit: bound ?? HUBSPOT_ASSUMED_PER_10S, windowMs: 10_000 };
  let answered = false;
  const governor = new RateGovernor(options.redis, options.keyPrefix, 'hubspot', portal, {
    untilLearned: { ...limit },
    closedError: () => new CrmDailyLimitError('HubSpot', { dailyRemaining: 0 }),
  });
  // What an earlier run (any process) learned of the portal stands until this sink's first answer.
  void governor.current(HUBSPOT_OPERATION).then(
    (stored) => {
      if (answered || stored === null || stored.mode !== 'headers') return;
      limit = { limit: boundedLimit(stored.limit, stored.windowMs, bound), windowMs: stored.windowMs };
    },
    () => undefined,
  );
  const caller = createHubSpotCaller(client, governor, {
    limits: {
      boundPer10s: bound,
      onLearned: (learned) => ((answered = true), (limit = { limit: learned.limit, windowMs: learned.windowMs })),
    },
    ...(options.requestTimeoutMs ? { requestTimeoutMs: options.requestTimeoutMs } : {}),
    ...(options.retry ? { retry: options.retry } : {}),
  });
  // Company HubSpot ids by match key, for links; only found ids are cached (a missing company may appear later).
  const companyIds = new Map<string, string>();

  return {
    kind: 'hubspot',
    get throttled() {
      return caller.throttled;
    },

    preflight: (mapping, callOptions) =>
      cachedPreflight(preflightKey('hubspot', [options.baseUrl, options.accessToken], mapping), () =>
        preflightHubSpot(caller, mapping, callOptions?.signal),
      ),

    prepare: (target) => prepareTarget(caller, target),

    dayFields: (object, fields, callOptions) => hubspotDayFields(caller, object, fields, callOptions?.signal),

    async readCurrent(target, keys, fields, callOptions) {
      const found = await readByKey(caller, target.object, target.matchField, keys, fields, callOptions?.signal);
      const out = new Map<string, Record<string, CrmValue>>();
      for (const [key, object] of found)
        out.set(key, Object.fromEntries(fields.map((f) => [f, object.properties[f] ?? null])));
      return out;
    },

    async upsert(target, records, callOptions) {
      const signal = callOptions?.signal;
      const outcomes: UpsertOutcome[] = [];
      let written: UpsertOutcome[] = [];
      try {
        for (const batch of chunks(records, HUBSPOT_BATCH_SIZE)) {
          written = await upsertBatch(caller, target.object, target.matchField, batch, signal);
          if (target.associate !== undefined)
            written = await linkToCompanies(caller, target, target.associate, batch, written, companyIds, signal);
          outcomes.push(...written);
          written = [];
        }
      } catch (err) {
        // HubSpot holds what it answered before the failure (a link lookup Redis refused, a later batch): the writer
        // counts it.
        throw withAnswered(err, [...outcomes, ...written]);
      }
      const rejected = outcomes.filter((o) => o.status === 'rejected').length;
      if (rejected > 0) log.warn({ object: target.object, rejected, of: records.length }, 'hubspot rejected records');
      return outcomes;
    },

    preferredBatchSize: () => HUBSPOT_BATCH_SIZE,

    ceiling: () => hubspotCeiling(limit.limit, limit.windowMs),

    lists: createHubSpotLists(caller),

    async erase(target, keys, how, callOptions) {
      if (how === 'archive') return this.archive(target, keys, callOptions);
      return gdprDeleteByKey(caller, target, keys, callOptions?.signal);
    },

    async archive(target, keys, callOptions) {
      const result = await archiveByKey(caller, target, keys, callOptions?.signal);
      // An archived company is no link target any more: a person written later links to its successor.
      if (target.object === 'companies')
        for (const key of [...result.archived, ...result.missing]) companyIds.delete(key);
      return result;
    },

    optedOut: (target, fields, callOptions) =>
      optedOutKeys(caller, target.object, target.matchField, fields, callOptions?.signal),

    identity: async (callOptions) => `hubspot:${await hubspotPortalId(caller, callOptions?.signal)}`,

    close: () => {
      close();
      return Promise.resolve();
    },
  };
}
