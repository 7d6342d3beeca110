import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Connection } from 'jsforce';
import { RateGovernor, type OutcomeClass } from '../../shared/rate-governor.js';
import { chunks } from '../chunks.js';
import type { CrmRecord, CrmSink, CrmValue, ObjectTarget, SinkCallOptions, UpsertOutcome } from '../crm-sink.js';
import { silentLogger, type Logger } from '../../shared/logger.js';
import { ApiShareGuard } from './api-share-guard.js';
import { BULK_JOB_MIN_REQUESTS, parseBulkError, runBulkUpsert, type BulkRow } from './bulk-upsert.js';
import { authorize, createSalesforceConnection } from './salesforce-connection.js';
import { SalesforceAuthError, SalesforceDailyLimitError, SalesforceRequestError, SalesforceSchemaError } from './salesforce-errors.js';
import { DAILY_PROBE_AFTER_MS, DEFAULT_RETRY, outcomeOfFailure, withRetry, type RetryOptions } from './salesforce-call-policy.js';
import { isMissingParent, outcomeOf, rejected, type SaveResultLike } from './save-outcome.js';
import { inQueries } from './soql-literal.js';
import { inLanes } from '../../shared/in-lanes.js';
import { untilAborted } from '../../shared/remote-deadline.js';

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

/** The governed operation: Salesforce's daily allowance counts every API request alike. */
const SF_OPERATION = 'api';

/** Salesforce's cap on records per sObject Collections request. */
const COLLECTION_SIZE = 200;

interface PreparedTarget {
  /** Relationship name (e.g. `Account`) that links a person to its company by the company's external id. */
  relationship: string | undefined;
  /** Field names as Salesforce spells them, by lower-case name: API names are case-insensitive, JSON keys are not. */
  canonical: Map<string, string>;
}

interface DescribeField {
  name: string;
  externalId?: boolean;
  unique?: boolean;
  referenceTo?: string[] | null;
  relationshipName?: string | null;
}

/** CrmSink for Salesforce through jsforce: external-id upserts by sObject Collections, or Bulk API 2.0 for large runs. */
export class SalesforceSink implements CrmSink {
  readonly kind = 'salesforce' as const;
  private readonly conn: Connection;
  private readonly guard: ApiShareGuard;
  private readonly governor: RateGovernor | undefined;
  private readonly retry: RetryOptions;
  private readonly log: Logger;
  private authorized: Promise<void> | undefined;
  private readonly prepared = new Map<string, Promise<PreparedTarget>>();

  constructor(private readonly options: SalesforceSinkOptions) {
    this.conn = createSalesforceConnection({ ...options, apiVersion: options.apiVersion ?? '62.0' });
    const org = createHash('sha256').update(`${options.loginUrl}\n${options.clientId}`).digest('hex').slice(0, 12);
    this.governor = options.redis ? new RateGovernor(options.redis, options.keyPrefix ?? 'prospect-sync', 'salesforce', org, {
      untilLearned: 'open',
      closedError: () => new SalesforceDailyLimitError({}),
    }) : undefined;
    const readUsage = async (): Promise<{ used: number; limit: number } | undefined> => {
      if (!this.governor) return this.conn.limitInfo?.apiUsage;
      const daily = await this.governor.daily(SF_OPERATION);
      return daily ? { used: daily.limit - daily.remaining, limit: daily.limit } : undefined;
    };
    this.guard = new ApiShareGuard(readUsage, options.maxApiShare ?? 0.5);
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.log = (options.logger ?? silentLogger).child({ crm: 'salesforce' });
  }

  /** The jsforce connection's last `Sforce-Limit-Info` reading. */
  get apiUsage(): { used: number; limit: number } | undefined {
    return this.conn.limitInfo?.apiUsage;
  }

  preferredBatchSize(runVolume: number): number {
    // Collections: one call per lane, so a single upsert keeps every lane busy.
    return this.usesBulk(runVolume) ? (this.options.bulkBatchSize ?? 10_000) : COLLECTION_SIZE * this.concurrency;
  }

  async prepare(target: ObjectTarget, options?: SinkCallOptions): Promise<void> {
    await this.prepareTarget(target, options?.signal);
  }

  async readCurrent(target: ObjectTarget, keys: string[], fields: string[], options?: SinkCallOptions): Promise<Map<string, Record<string, CrmValue>>> {
    const { canonical } = await this.prepareTarget(target, options?.signal);
    const name = (f: string): string => canonical.get(f.toLowerCase()) ?? f;
    const wanted = new Map(keys.map((k) => [k.toLowerCase(), k]));
    const select = [...new Set(['Id', name(target.matchField), ...fields.map(name)])];
    const out = new Map<string, Record<string, CrmValue>>();
    // The queries of one read go out in the upsert's lanes: one after another they put their latencies end to end.
    const results = await inLanes(inQueries(select, target.object, target.matchField, [...new Set(keys)]), this.concurrency,
      (soql) => this.call(async () => await this.conn.query<Record<string, CrmValue>>(soql), options?.signal));
    for (const result of results) {
      for (const row of result.records) {
        const key = wanted.get(String(row[name(target.matchField)] ?? '').toLowerCase());
        if (key !== undefined) out.set(key, Object.fromEntries(fields.map((f) => [f, row[name(f)] ?? null])));
      }
    }
    return out;
  }

  async upsert(target: ObjectTarget, records: CrmRecord[], options?: SinkCallOptions & { runVolume?: number }): Promise<UpsertOutcome[]> {
    if (records.length === 0) return [];
    const { relationship, canonical } = await this.prepareTarget(target, options?.signal);
    const link = relationship && target.associate ? { relationship, field: target.associate.matchField } : undefined;
    // Salesforce spelling for every field: jsforce would read a property called `type` as the sObject type.
    const spelled = records.map((r) => ({ ...r, properties: Object.fromEntries(Object.entries(r.properties).map(([k, v]) => [canonical.get(k.toLowerCase()) ?? k, v])) }));
    target = { ...target, matchField: canonical.get(target.matchField.toLowerCase()) ?? target.matchField };
    let outcomes: UpsertOutcome[];
    const bulkMinBatch = this.options.bulkMinBatch ?? COLLECTION_SIZE * BULK_JOB_MIN_REQUESTS;
    if (this.usesBulk(options?.runVolume ?? records.length) && records.length > bulkMinBatch) {
      const size = this.options.bulkBatchSize ?? 10_000;
      outcomes = [];
      for (const part of chunks(spelled, size)) outcomes.push(...await this.upsertBulk(target, part, link, options?.signal));
    } else {
      outcomes = await this.upsertCollections(target, spelled, link, options?.signal);
    }
    return this.relinkless(target, spelled, outcomes, options?.signal);
  }

  /** The org id from the identity URL of the token response (jsforce keeps it as userInfo.organizationId). */
  async identity(options?: SinkCallOptions): Promise<string> {
    await this.call(() => Promise.resolve(), options?.signal, 0);
    const org = this.conn.userInfo?.organizationId;
    if (!org) throw new SalesforceAuthError('the token response carried no organization id (identity URL)');
    return `salesforce:${org}`;
  }

  async close(): Promise<void> {
    this.prepared.clear();
  }

  private get concurrency(): number {
    return Math.max(1, this.options.concurrency ?? 4);
  }

  private usesBulk(runVolume: number): boolean {
    return runVolume > (this.options.bulkThreshold ?? 2000);
  }

  /** One API call: auth first, then the share guard, then the retry policy. */
  private async call<T>(fn: () => Promise<T>, signal?: AbortSignal, requests = 1): Promise<T> {
    this.authorized ??= authorize(this.conn, this.retry).catch((err: unknown) => {
      this.authorized = undefined;
      throw err;
    });
    await untilAborted(this.authorized, signal);
    try {
      return await withRetry(async () => {
        // A used-up daily allowance (REQUEST_LIMIT_EXCEEDED seen by any process) refuses before the share guard.
        await this.governor?.acquire(SF_OPERATION, signal);
        return this.guard.track(requests, () => this.governed(fn));
      }, this.retry, signal, (attempt, code, delayMs) => {
        this.log.warn({ attempt, code, delayMs }, 'Salesforce call failed; retrying');
      });
    } catch (err) {
      if (err instanceof SalesforceDailyLimitError) await this.governor?.close(SF_OPERATION, DAILY_PROBE_AFTER_MS);
      throw err;
    }
  }

  /** Counts the call's outcome and shares the Sforce-Limit-Info reading jsforce kept (`conn.limitInfo`) through Redis. */
  private async governed<T>(fn: () => Promise<T>): Promise<T> {
    const governor = this.governor;
    if (!governor) return fn();
    const report = async (outcome: OutcomeClass): Promise<void> => {
      const usage = this.conn.limitInfo?.apiUsage;
      await governor.settle(SF_OPERATION, { outcome, ...(usage ? { daily: { limit: usage.limit, remaining: usage.limit - usage.used } } : {}) });
    };
    try {
      const result = await fn();
      await report('2xx');
      return result;
    } catch (err) {
      await report(outcomeOfFailure(err));
      throw err;
    }
  }

  private prepareTarget(target: ObjectTarget, signal?: AbortSignal): Promise<PreparedTarget> {
    const cacheKey = JSON.stringify([target.object, target.matchField, target.fields, target.associate]);
    let prepared = this.prepared.get(cacheKey);
    if (!prepared) {
      prepared = this.describeTarget(target, signal);
      prepared.catch(() => this.prepared.delete(cacheKey));
      this.prepared.set(cacheKey, prepared);
    }
    return prepared;
  }

  private async describeFields(object: string, signal?: AbortSignal): Promise<DescribeField[]> {
    try {
      const described = await this.call(() => this.conn.describe(object), signal);
      return described.fields as DescribeField[];
    } catch (err) {
      if (err instanceof SalesforceRequestError) {
        throw new SalesforceSchemaError(`Salesforce object ${object} does not exist or is not accessible to the integration user`, { object });
      }
      throw err;
    }
  }

  private async describeTarget(target: ObjectTarget, signal?: AbortSignal): Promise<PreparedTarget> {
    const fields = await this.describeFields(target.object, signal);
    const byName = new Map(fields.map((f) => [f.name.toLowerCase(), f]));
    const match = byName.get(target.matchField.toLowerCase());
    if (!match?.externalId) {
      throw new SalesforceSchemaError(
        match
          ? `Salesforce field ${target.object}.${target.matchField} is not marked External ID; mark it External ID (and Unique) in Setup — prospect-sync never changes the Salesforce schema`
          : `Salesforce field ${target.object}.${target.matchField} does not exist; create it as a Text field marked External ID and Unique — prospect-sync never changes the Salesforce schema`,
        { object: target.object, field: target.matchField },
      );
    }
    if (!match.unique) this.log.warn({ object: target.object, field: target.matchField }, 'match field is an External ID but not Unique: duplicates would make upserts fail');
    const missing = target.fields.filter((f) => !byName.has(f.toLowerCase()));
    if (missing.length > 0) {
      throw new SalesforceSchemaError(`Salesforce object ${target.object} has no field(s) ${missing.join(', ')} (mapped in the config)`, { object: target.object, fields: missing });
    }
    const canonical = new Map(fields.map((f) => [f.name.toLowerCase(), f.name]));
    if (!target.associate) return { relationship: undefined, canonical };
    const reference = fields.find((f) => f.referenceTo?.some((r) => r.toLowerCase() === target.associate!.object.toLowerCase()) && f.relationshipName);
    if (!reference) {
      throw new SalesforceSchemaError(`Salesforce object ${target.object} has no lookup to ${target.associate.object}, so its records cannot be linked to a company`, { object: target.object, parent: target.associate.object });
    }
    const parentFields = await this.describeFields(target.associate.object, signal);
    const parentMatch = parentFields.find((f) => f.name.toLowerCase() === target.associate!.matchField.toLowerCase());
    if (!parentMatch?.externalId) {
      throw new SalesforceSchemaError(`Salesforce field ${target.associate.object}.${target.associate.matchField} must exist and be an External ID to link ${target.object} records`, { object: target.associate.object, field: target.associate.matchField });
    }
    return { relationship: reference.relationshipName!, canonical };
  }

  private payload(target: ObjectTarget, record: CrmRecord, link: { relationship: string; field: string } | undefined): Record<string, unknown> {
    const body: Record<string, unknown> = { ...record.properties, [target.matchField]: record.key };
    if (link && record.companyKey) body[link.relationship] = { [link.field]: record.companyKey };
    return body;
  }

  private async upsertCollections(target: ObjectTarget, records: CrmRecord[], link: { relationship: string; field: string } | undefined, signal?: AbortSignal): Promise<UpsertOutcome[]> {
    // On the first failure the other lanes finish their call in flight and stop: nothing keeps writing after we throw.
    const results = await inLanes(chunks(records, COLLECTION_SIZE), this.concurrency, async (chunk) => {
      const saved = await this.call(
        () => this.conn.upsert(target.object, chunk.map((r) => this.payload(target, r, link)) as never[], target.matchField, { allOrNone: false }),
        signal,
      ) as unknown as SaveResultLike[];
      return chunk.map((record, j) => outcomeOf(record, saved[j]));
    });
    return results.flat();
  }

  private async upsertBulk(target: ObjectTarget, records: CrmRecord[], link: { relationship: string; field: string } | undefined, signal?: AbortSignal): Promise<UpsertOutcome[]> {
    const linkColumn = link && records.some((r) => r.companyKey) ? `${link.relationship}.${link.field}` : undefined;
    const columns = [...new Set(records.flatMap((r) => Object.keys(r.properties)))].filter((c) => c.toLowerCase() !== target.matchField.toLowerCase());
    const rows: BulkRow[] = records.map((r) => {
      const row: BulkRow = { [target.matchField]: r.key };
      // In CSV an empty cell means "leave as is": absent properties stay empty, empty strings clear the field (#N/A) as in JSON.
      for (const c of columns) row[c] = c in r.properties ? (r.properties[c] === '' ? null : r.properties[c]!) : '';
      if (linkColumn) row[linkColumn] = r.companyKey ?? '';
      return row;
    });
    const results = await this.call(() => runBulkUpsert(this.conn, {
      object: target.object, externalIdFieldName: target.matchField, rows,
      pollIntervalMs: this.options.bulkPollIntervalMs ?? 1000, pollTimeoutMs: this.options.bulkPollTimeoutMs ?? 600_000,
    }, (n) => this.guard.count(n), (read) => withRetry(read, this.retry, signal)), signal, BULK_JOB_MIN_REQUESTS);
    // Results are not in input order: map them back by external id (case-insensitive, as Salesforce matches).
    const byKey = new Map<string, UpsertOutcome[]>();
    const push = (key: string, outcome: UpsertOutcome): void => {
      const list = byKey.get(key.toLowerCase()) ?? [];
      list.push(outcome);
      byKey.set(key.toLowerCase(), list);
    };
    const recordByKey = new Map(records.map((r) => [r.key.toLowerCase(), r]));
    for (const row of results.successful) {
      const key = row[target.matchField] ?? '';
      push(key, { key, status: row.sf__Created === 'true' ? 'created' : 'updated', crmId: row.sf__Id ?? '' });
    }
    for (const row of results.failed) {
      const key = row[target.matchField] ?? '';
      const { code, message } = parseBulkError(row.sf__Error ?? '');
      const record = recordByKey.get(key.toLowerCase()) ?? { key, properties: {} };
      push(key, rejected(record, code, message));
    }
    return records.map((record) => {
      const outcome = byKey.get(record.key.toLowerCase())?.shift();
      return outcome ? { ...outcome, key: record.key } : rejected(record, 'BULK_UNPROCESSED', 'Salesforce did not process this record in the Bulk API job; it will be retried');
    });
  }

  /**
   * Persons whose company is not (yet) in Salesforce fail as a whole on the nested reference. Write them again
   * without the link so their data lands, and report the missing link as `linkError`.
   */
  private async relinkless(target: ObjectTarget, records: CrmRecord[], outcomes: UpsertOutcome[], signal?: AbortSignal): Promise<UpsertOutcome[]> {
    const retry = outcomes.flatMap((o, i) => (isMissingParent(o) && records[i]!.companyKey ? [i] : []));
    if (retry.length === 0) return outcomes;
    const again = await this.upsertCollections(target, retry.map((i) => records[i]!), undefined, signal);
    retry.forEach((index, j) => {
      const outcome = again[j]!;
      const parent = `${target.associate?.object ?? 'company'} ${records[index]!.companyKey!}`;
      outcomes[index] = outcome.status === 'rejected' ? outcome : { ...outcome, linkError: `${parent} not found in Salesforce; record written without the link` };
    });
    return outcomes;
  }
}
