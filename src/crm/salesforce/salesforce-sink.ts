import type { Redis } from 'ioredis';
import { silentLogger, type Logger } from '../../shared/logger.js';
import { chunks } from '../chunks.js';
import type {
  EraseMode,
  ArchiveResult,
  CrmRecord,
  CrmSink,
  CrmValue,
  ListPort,
  ObjectTarget,
  SinkCallOptions,
  UpsertOutcome,
} from '../crm-sink.js';
import { BULK_JOB_MIN_REQUESTS } from './bulk-upsert.js';
import { upsertBulk } from './salesforce-bulk.js';
import { SalesforceCaller } from './salesforce-caller.js';
import { createSalesforceCampaigns } from './salesforce-campaigns.js';
import type { RetryOptions } from './salesforce-call-policy.js';
import { COLLECTION_SIZE, upsertCollections } from './salesforce-collections.js';
import { SalesforceAuthError } from './salesforce-errors.js';
import { linkOf, relinkless } from './salesforce-links.js';
import { deleteByKey } from './salesforce-delete.js';
import { optedOutKeys } from './salesforce-opt-outs.js';
import { readByKey } from './salesforce-read.js';
import { describeFields, SalesforceSchema, spellRecords } from './salesforce-schema.js';
import type { FieldMapping } from '../field-mapping.js';
import { cachedPreflight, preflightKey } from '../preflight-cache.js';
import { preflightSalesforce, type DescribedField } from './salesforce-preflight.js';

export interface SalesforceSinkOptions {
  loginUrl: string;
  clientId: string;
  clientSecret: string;
  /** Default "62.0". */
  apiVersion?: string;
  /** Runs with more records than this use Bulk API 2.0 (Salesforce's own rule of thumb: 2,000). */
  bulkThreshold?: number;
  /** Records per Bulk API 2.0 job. */
  bulkBatchSize?: number;
  /**
   * Even in a bulk run, a batch this small or smaller goes by collections: a job costs at least 7 requests, which
   * collections spend on 1,400 records (the default).
   */
  bulkMinBatch?: number;
  /** Never pass this share (0..1] of the org's daily API allowance. Default 0.5. */
  maxApiShare?: number;
  /** Collections calls in flight at once within one upsert. */
  concurrency?: number;
  retry?: Partial<RetryOptions>;
  bulkPollIntervalMs?: number;
  bulkPollTimeoutMs?: number;
  /** Deadline of one request (login, call, bulk upload, poll, download); default 120 s. */
  requestTimeoutMs?: number;
  logger?: Logger;
  /**
   * Where the org's governor keeps its state (request counts, Sforce-Limit-Info usage for `maxApiShare`), shared by
   * every run and process; keys under `<keyPrefix>:gov:salesforce:<hash of login URL and client id>:api`. Without
   * it the share guard reads this process's last header only.
   */
  redis?: Redis;
  keyPrefix?: string;
}

/**
 * CrmSink for Salesforce through jsforce: external-id upserts by sObject Collections, or Bulk API 2.0 for large runs.
 */
export class SalesforceSink implements CrmSink {
  readonly kind = 'salesforce' as const;
  private readonly caller: SalesforceCaller;
  private readonly schema: SalesforceSchema;
  private readonly lanes: number;
  /** A search's list: a Campaign and its CampaignMembers (salesforce-campaigns.ts). */
  readonly lists: ListPort;

  constructor(private readonly options: SalesforceSinkOptions) {
    const logger = (options.logger ?? silentLogger).child({ crm: 'salesforce' });
    this.caller = new SalesforceCaller({
      ...options,
      apiVersion: options.apiVersion ?? '62.0',
      maxApiShare: options.maxApiShare ?? 0.5,
      logger,
    });
    this.schema = new SalesforceSchema(this.caller, logger);
    this.lanes = Math.max(1, options.concurrency ?? 4);
    this.lists = createSalesforceCampaigns(this.caller, this.schema, this.lanes);
  }

  /** The jsforce connection's last `Sforce-Limit-Info` reading. */
  get apiUsage(): { used: number; limit: number } | undefined {
    return this.caller.apiUsage;
  }

  preferredBatchSize(runVolume: number): number {
    // Collections: one call per lane, so a single upsert keeps every lane busy.
    return this.usesBulk(runVolume) ? this.bulkBatchSize : COLLECTION_SIZE * this.lanes;
  }

  preflight(mapping: FieldMapping, options?: SinkCallOptions): Promise<void> {
    const { loginUrl, clientId, clientSecret } = this.options;
    const describe = async (object: string): Promise<DescribedField[]> =>
      (await describeFields(this.caller, object, options?.signal)) as DescribedField[];
    return cachedPreflight(preflightKey('salesforce', [loginUrl, clientId, clientSecret], mapping), () =>
      preflightSalesforce(describe, mapping),
    );
  }

  /** Fields of type `date` among `fields`: Salesforce takes YYYY-MM-DD there. One describe. */
  async dayFields(object: string, fields: readonly string[], options?: SinkCallOptions): Promise<Set<string>> {
    const days = new Set(
      ((await describeFields(this.caller, object, options?.signal)) as DescribedField[])
        .filter((f) => f.type === 'date')
        .map((f) => f.name.toLowerCase()),
    );
    return new Set(fields.filter((f) => days.has(f.toLowerCase())));
  }

  async prepare(target: ObjectTarget, options?: SinkCallOptions): Promise<void> {
    await this.schema.prepare(target, options?.signal);
  }

  async readCurrent(
    target: ObjectTarget,
    keys: string[],
    fields: string[],
    options?: SinkCallOptions,
  ): Promise<Map<string, Record<string, CrmValue>>> {
    const { canonical } = await this.schema.prepare(target, options?.signal);
    return readByKey(this.caller, target, canonical, keys, fields, this.lanes, options?.signal);
  }

  async upsert(
    target: ObjectTarget,
    records: CrmRecord[],
    options?: SinkCallOptions & { runVolume?: number },
  ): Promise<UpsertOutcome[]> {
    if (records.length === 0) return [];
    const signal = options?.signal;
    const prepared = await this.schema.prepare(target, signal);
    const link = linkOf(prepared, target);
    const spelled = spellRecords(prepared, target, records);
    const to = spelled.target;
    const bulkMinBatch = this.options.bulkMinBatch ?? COLLECTION_SIZE * BULK_JOB_MIN_REQUESTS;
    let outcomes: UpsertOutcome[];
    if (this.usesBulk(options?.runVolume ?? records.length) && records.length > bulkMinBatch) {
      const polling = {
        pollIntervalMs: this.options.bulkPollIntervalMs ?? 1000,
        pollTimeoutMs: this.options.bulkPollTimeoutMs ?? 600_000,
      };
      outcomes = [];
      for (const part of chunks(spelled.records, this.bulkBatchSize))
        outcomes.push(...(await upsertBulk(this.caller, to, part, link, polling, signal)));
    } else {
      outcomes = await upsertCollections(this.caller, to, spelled.records, link, this.lanes, signal);
    }
    return relinkless(to, spelled.records, outcomes, (unlinked) =>
      upsertCollections(this.caller, to, unlinked, undefined, this.lanes, signal),
    );
  }

  /** Erasure on request: Salesforce deletes in both modes (to the Recycle Bin, 15 days; no hard delete here). */
  async erase(
    target: ObjectTarget,
    keys: readonly string[],
    _how: EraseMode,
    options?: SinkCallOptions,
  ): Promise<ArchiveResult> {
    return this.archive(target, keys, options);
  }

  /** Deletes the records with these keys (Salesforce has no archive; the Recycle Bin keeps them 15 days). */
  async archive(target: ObjectTarget, keys: readonly string[], options?: SinkCallOptions): Promise<ArchiveResult> {
    if (keys.length === 0) return { archived: [], missing: [], refused: [] };
    const { canonical } = await this.schema.prepare(target, options?.signal);
    return deleteByKey(this.caller, target, canonical, keys, this.lanes, options?.signal);
  }

  /** Match keys of the records where one of these checkboxes is true (`suppress.crm`), page by page. */
  optedOut(target: ObjectTarget, fields: readonly string[], options?: SinkCallOptions): AsyncIterable<string[]> {
    return optedOutKeys(this.caller, target.object, target.matchField, fields, options?.signal);
  }

  /** The org id from the identity URL of the token response (jsforce keeps it as userInfo.organizationId). */
  async identity(options?: SinkCallOptions): Promise<string> {
    await this.caller.call(() => Promise.resolve(), options?.signal, 0);
    const org = this.caller.organizationId;
    if (!org) throw new SalesforceAuthError('the token response carried no organization id (identity URL)');
    return `salesforce:${org}`;
  }

  async close(): Promise<void> {
    this.schema.clear();
  }

  private get bulkBatchSize(): number {
    return this.options.bulkBatchSize ?? 10_000;
  }

  private usesBulk(runVolume: number): boolean {
    return runVolume > (this.options.bulkThreshold ?? 2000);
  }
}
