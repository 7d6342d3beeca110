import { silentLogger, type Logger } from '../../shared/logger.js';
import { chunks } from '../chunks.js';
import type { CrmSink, CrmValue, UpsertOutcome } from '../crm-sink.js';
import { linkToCompanies } from './hubspot-associations.js';
import { createHubSpotCaller } from './hubspot-caller.js';
import { createHubSpotClient } from './hubspot-client.js';
import type { RetryOptions } from './hubspot-retry.js';
import { hubspotPortalId } from './hubspot-identity.js';
import { HUBSPOT_BATCH_SIZE, readByKey } from './hubspot-read.js';
import { prepareTarget } from './hubspot-schema.js';
import { upsertBatch } from './hubspot-upsert.js';

/** The object persons (`contacts`) link to; its match field comes from the config of the search that writes companies. */
export const HUBSPOT_COMPANY_OBJECT = 'companies';

export interface HubSpotSinkOptions {
  accessToken: string;
  /** e.g. `https://api.hubapi.com` or an emulator URL; a trailing slash is removed. */
  baseUrl: string;
  /** Private-app limit per 10 s window (config `requestsPer10s`, default 100); the -Max header can only lower it. */
  requestsPer10s?: number;
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
  const caller = createHubSpotCaller(client, { requestsPer10s: options.requestsPer10s ?? 100, ...(options.retry ? { retry: options.retry } : {}) });
  // Company HubSpot ids by match key, for links; only found ids are cached (a missing company may appear later).
  const companyIds = new Map<string, string>();

  return {
    kind: 'hubspot',
    get throttled() {
      return caller.throttled;
    },

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
