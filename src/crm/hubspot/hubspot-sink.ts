import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { silentLogger, type Logger } from '../../shared/logger.js';
import { RateGovernor } from '../../shared/rate-governor.js';
import { chunks } from '../chunks.js';
import type { CrmSink, CrmValue, UpsertOutcome } from '../crm-sink.js';
import { linkToCompanies } from './hubspot-associations.js';
import { createHubSpotCaller } from './hubspot-caller.js';
import { createHubSpotClient } from './hubspot-client.js';
import { CrmDailyLimitError } from '../errors.js';
import type { RetryOptions } from './hubspot-call-policy.js';
import { hubspotPortalId } from './hubspot-identity.js';
import { HUBSPOT_BATCH_SIZE } from './hubspot-limits.js';
import { readByKey } from './hubspot-read.js';
import { prepareTarget } from './hubspot-schema.js';
import { cachedPreflight, preflightKey } from '../preflight-cache.js';
import { preflightHubSpot } from './hubspot-preflight.js';
import { upsertBatch } from './hubspot-upsert.js';

export interface HubSpotSinkOptions {
  accessToken: string;
  /** e.g. `https://api.hubapi.com` or an emulator URL; a trailing slash is removed. */
  baseUrl: string;
  /** Private-app limit per 10 s window (config `requestsPer10s`, default 100); the -Max header can only lower it. */
  requestsPer10s?: number;
  /** Where the portal's rate governor keeps its state, shared by every run and process writing to the portal. */
  redis: Redis;
  /** Key prefix of that state (the app's Redis prefix); keys live under `<keyPrefix>:gov:hubspot:<portal>:`. */
  keyPrefix: string;
  /** Governor label of the portal (e.g. the portal id). Default: a short hash of the base URL and token, never the token. */
  portalKey?: string;
  /** Tests shorten backoff. */
  retry?: Partial<RetryOptions>;
  logger?: Logger;
}

export interface HubSpotSink extends CrmSink {
  /** 429 answers received so far (each was waited out and retried). */
  readonly throttled: number;
  /** `hubspot:<portalId>` from the account-info API. */
  identity(options?: { signal?: AbortSignal }): Promise<string>;
}

export function createHubSpotSink(options: HubSpotSinkOptions): HubSpotSink {
  const log = options.logger ?? silentLogger;
  const { client, close } = createHubSpotClient(options.accessToken, options.baseUrl);
  const portal = options.portalKey ?? createHash('sha256').update(`${options.baseUrl.replace(/\/+$/, '')}\n${options.accessToken}`).digest('hex').slice(0, 12);
  const governor = new RateGovernor(options.redis, options.keyPrefix, 'hubspot', portal, {
    untilLearned: { limit: options.requestsPer10s ?? 100, windowMs: 10_000 },
    closedError: () => new CrmDailyLimitError('HubSpot', { dailyRemaining: 0 }),
  });
  const caller = createHubSpotCaller(client, governor, { requestsPer10s: options.requestsPer10s ?? 100, ...(options.retry ? { retry: options.retry } : {}) });
  // Company HubSpot ids by match key, for links; only found ids are cached (a missing company may appear later).
  const companyIds = new Map<string, string>();

  return {
    kind: 'hubspot',
    get throttled() {
      return caller.throttled;
    },

    preflight: (mapping, callOptions) =>
      cachedPreflight(preflightKey('hubspot', [options.baseUrl, options.accessToken], mapping), () => preflightHubSpot(caller, mapping, callOptions?.signal)),

    prepare: (target) => prepareTarget(caller, target),

    async readCurrent(target, keys, fields, callOptions) {
      const found = await readByKey(caller, target.object, target.matchField, keys, fields, callOptions?.signal);
      const out = new Map<string, Record<string, CrmValue>>();
      for (const [key, object] of found) out.set(key, Object.fromEntries(fields.map((f) => [f, object.properties[f] ?? null])));
      return out;
    },

    async upsert(target, records, callOptions) {
      const signal = callOptions?.signal;
      const outcomes: UpsertOutcome[] = [];
      for (const batch of chunks(records, HUBSPOT_BATCH_SIZE)) {
        let written = await upsertBatch(caller, target.object, target.matchField, batch, signal);
        if (target.associate !== undefined) written = await linkToCompanies(caller, target, target.associate, batch, written, companyIds, signal);
        outcomes.push(...written);
      }
      const rejected = outcomes.filter((o) => o.status === 'rejected').length;
      if (rejected > 0) log.warn({ object: target.object, rejected, of: records.length }, 'hubspot rejected records');
      return outcomes;
    },

    preferredBatchSize: () => HUBSPOT_BATCH_SIZE,

    identity: async (callOptions) => `hubspot:${await hubspotPortalId(caller, callOptions?.signal)}`,

    close: () => {
      close();
      return Promise.resolve();
    },
  };
}
