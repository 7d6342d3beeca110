import type { Redis } from 'ioredis';
import { silentLogger, type Logger } from '../shared/logger.js';
import { passedByFields } from './absent-paths.js';
import { createChangeDetector } from './change-detector.js';
import { chunks } from './chunks.js';
import type { CrmRecord, CrmSink, CrmValue, ObjectTarget } from './crm-sink.js';
import { mapRecord, type FieldMapping } from './field-mapping.js';
import { redactReason } from './reason-redaction.js';
import { createRejectStore, type RejectEntry, type RejectStore } from './reject-store.js';
import { answeredBefore, summarize, withAnswered, type WriteOutcome, type WriteResult } from './write-result.js';

export interface CrmWriterOptions {
  sink: CrmSink;
  redis: Redis;
  /** Prefix of every Redis key the writer uses (hashes, rejects); tests use a unique one. */
  keyPrefix: string;
  /** Destination name from the config: change hashes are kept per destination and object. */
  destination: string;
  searchName: string;
  /** The search's own object: its records' change state is in the search's record state (else: per mapping). */
  searchObject?: string;
  /** Ignore stored hashes: every record is sent (hashes are still refreshed). */
  fullResync?: boolean;
  logger?: Logger;
}

export interface WriteOptions {
  signal?: AbortSignal;
  /** Records expected in the whole run; lets the sink pick its batch size / API (Salesforce Bulk). */
  runVolume?: number;
  /** Map, detect changes and read the CRM, but write nothing (not even hashes or rejects). */
  dryRun?: boolean;
}

export interface CrmWriter {
  /** Once per run before writing: checks (HubSpot: creates) the match field and the mapped fields. */
  prepare(target: ObjectTarget, options?: { signal?: AbortSignal }): Promise<void>;
  write(records: unknown[], mapping: FieldMapping, options?: WriteOptions): Promise<WriteResult>;
  /** The CRM instance the sink reported, once asked (by `prepare` or a write); undefined: not asked yet. */
  instance?(): Promise<string> | undefined;
}

/** Upsert calls run one after the other per write; parallel writes share the sink's rate limiting. */
export function createCrmWriter(options: CrmWriterOptions): CrmWriter {
  const { sink, redis, keyPrefix, destination, searchName } = options;
  const log = options.logger ?? silentLogger;
  // Change hashes and rejects belong to the CRM instance (portal / org) the sink talks to: asked once per writer.
  let instance: Promise<string> | undefined;
  const identity = (signal?: AbortSignal): Promise<string> => {
    instance ??= (sink.identity ? sink.identity(signal ? { signal } : {}) : Promise.resolve('default')).catch(
      (err: unknown) => {
        instance = undefined;
        throw err;
      },
    );
    return instance;
  };

  // Per CRM instance, once per writer (one run, under its run lock): the search's current instance is set once, and
  // whether its retry set is known to be empty (then accepted records have nothing to leave it: no ZREM per batch).
  let opened:
    | { instance: string; rejects: RejectStore; set?: Promise<void>; retryEmpty?: boolean; linksEmpty?: boolean }
    | undefined;
  const rejectStoreFor = (current: string): NonNullable<typeof opened> => {
    if (opened?.instance !== current)
      opened = { instance: current, rejects: createRejectStore(redis, keyPrefix, current) };
    return opened;
  };

  return {
    instance: () => instance,

    async prepare(target, callOptions) {
      await sink.prepare(target, callOptions);
      await identity(callOptions?.signal);
    },

    async write(sources, mapping, writeOptions = {}) {
      const { signal, runVolume, dryRun = false } = writeOptions;
      const target = mapping.target;
      const current = await identity(signal);
      const store = rejectStoreFor(current);
      const { rejects } = store;
      if (!dryRun) {
        store.set ??= rejects.useInstance(searchName, current).catch((err: unknown) => {
          store.set = undefined;
          throw err;
        });
        await store.set;
      }
      const own =
        target.object === options.searchObject ? { search: searchName, passedBy: passedByFields(mapping) } : undefined;
      const detector = createChangeDetector(redis, keyPrefix, destination, target, current, own);
      const outcomes: (WriteOutcome | undefined)[] = new Array<WriteOutcome | undefined>(sources.length);
      const newRejects: RejectEntry[] = [];
      const at = new Date().toISOString();
      const reject = (
        index: number,
        key: string | undefined,
        code: string,
        reason: string,
        record?: CrmRecord,
        field?: string,
      ): void => {
        const safe = redactReason(reason, record);
        const shown = key ?? `#${index}`;
        const named = field === undefined ? {} : { field };
        outcomes[index] = { key: shown, status: 'rejected', code, reason: safe, ...named };
        newRejects.push({
          key: shown,
          object: target.object,
          code,
          reason: safe,
          at,
          ...named,
          ...(key === undefined ? { keyless: true as const } : {}),
        });
      };

      // Map; the last copy of a key wins (HubSpot refuses duplicate ids in one batch).
      const byKey = new Map<string, { index: number; record: CrmRecord }>();
      sources.forEach((source, index) => {
        const mapped = mapRecord(mapping, source);
        if (!mapped.ok) {
          reject(index, mapped.key, mapped.code, mapped.reason, undefined, mapped.field);
          return;
        }
        const earlier = byKey.get(mapped.record.key);
        if (earlier !== undefined) outcomes[earlier.index] = { key: mapped.record.key, status: 'duplicate' };
        byKey.set(mapped.record.key, { index, record: mapped.record });
      });

      // Rejects are stored as they happen: a run stopped later (daily limit) keeps them.
      const flushRejects = async (): Promise<void> => {
        if (dryRun || newRejects.length === 0) return;
        const entries = newRejects.splice(0);
        if (entries.some((e) => e.keyless !== true && e.kind !== 'link')) store.retryEmpty = false;
        if (entries.some((e) => e.kind === 'link')) store.linksEmpty = false;
        await rejects.add(searchName, entries);
      };
      // Whether anything waits for a retry: asked once per run; afterwards only this writer adds to the set.
      const resolveAccepted = async (keys: string[]): Promise<void> => {
        if (keys.length === 0) return;
        store.retryEmpty ??= (await rejects.pendingCount(searchName)) === 0;
        if (!store.retryEmpty) await rejects.resolve(searchName, keys);
      };
      // Persons linked now whose link failed before: their failed-link entries leave the rejects list.
      const resolveLinked = async (keys: string[]): Promise<void> => {
        if (keys.length === 0) return;
        store.linksEmpty ??= (await rejects.linkCount(searchName)) === 0;
        if (!store.linksEmpty) await rejects.resolveLinks(searchName, keys);
      };
      await flushRejects();

      let pending = [...byKey.values()];
      if (options.fullResync !== true) {
        const same = await detector.unchanged(
          pending.map((p) => p.record),
          { upgrade: !dryRun },
        );
        for (const p of pending)
          if (same.has(p.record.key)) outcomes[p.index] = { key: p.record.key, status: 'unchanged' };
        pending = pending.filter((p) => !same.has(p.record.key));
      }

      const guarded = mapping.fields.filter((f) => f.overwrite !== 'always').map((f) => f.field);
      if (pending.length > 0 && (guarded.length > 0 || dryRun)) {
        const current = await sink.readCurrent(
          target,
          pending.map((p) => p.record.key),
          guarded,
          { signal },
        );
        pending = pending.map((p) => {
          const existing = current.get(p.record.key);
          if (dryRun) {
            outcomes[p.index] = {
              key: p.record.key,
              status: existing === undefined ? 'created' : 'updated',
              crmId: '',
            };
          }
          return existing === undefined ? p : { ...p, record: withoutGuarded(p.record, mapping, existing) };
        });
      }

      if (!dryRun) {
        try {
          const batchSize = Math.max(1, sink.preferredBatchSize(runVolume ?? sources.length));
          for (const batch of chunks(pending, batchSize)) {
            signal?.throwIfAborted();
            const results = await sink
              .upsert(
                target,
                batch.map((p) => p.record),
                { ...(signal ? { signal } : {}), ...(runVolume !== undefined ? { runVolume } : {}) },
              )
              .catch((err: unknown) => {
                // What the sink answered before it failed (by this chunk's records) is this write's answer too.
                answeredBefore(err)?.forEach((o, j) => {
                  const p = batch[j];
                  if (p && (o?.status === 'created' || o?.status === 'updated')) outcomes[p.index] = o;
                });
                throw err;
              });
            const accepted: CrmRecord[] = [];
            const linkFailed: string[] = [];
            const failed: string[] = [];
            batch.forEach((p, j) => {
              const outcome = results[j];
              if (outcome === undefined || outcome.key !== p.record.key) {
                reject(p.index, p.record.key, 'no_outcome', 'the CRM returned no result for this record', p.record);
                failed.push(p.record.key);
              } else if (outcome.status === 'rejected') {
                reject(p.index, p.record.key, outcome.code, outcome.reason, p.record, outcome.field);
                failed.push(p.record.key);
              } else {
                const linked = p.record.companyKey !== undefined && outcome.linkError === undefined;
                outcomes[p.index] = linked ? { ...outcome, linked: true } : outcome;
                // A failed link is retried next run: keep the record "changed" until it is linked.
                if (outcome.linkError === undefined) accepted.push(fullRecord(byKey, p.record.key));
                else {
                  linkFailed.push(p.record.key);
                  newRejects.push({
                    key: p.record.key,
                    object: target.object,
                    code: 'link_failed',
                    reason: redactReason(outcome.linkError, p.record),
                    at,
                    kind: 'link',
                  });
                }
              }
            });
            await detector.remember(accepted);
            await detector.forget(failed);
            // Written is written: a link that failed is not a reject, so the key leaves the retry set either way.
            await resolveAccepted([...accepted.map((r) => r.key), ...linkFailed]);
            await resolveLinked(accepted.filter((r) => r.companyKey !== undefined).map((r) => r.key));
            await flushRejects();
          }
        } catch (err) {
          // The CRM may hold records of this write already (an earlier chunk's, or those of the chunk whose bookkeeping
          // Redis refused): the error carries the write's outcomes so far, so the run counts them.
          throw withAnswered(err, outcomes);
        }
      }

      const result = summarize(
        outcomes.map((o, i) => o ?? { key: `#${i}`, status: 'rejected', code: 'no_outcome', reason: 'not processed' }),
      );
      log.info(
        {
          search: searchName,
          object: target.object,
          dryRun,
          created: result.created,
          updated: result.updated,
          unchanged: result.unchanged,
          rejected: result.rejected,
        },
        'crm write',
      );
      return result;
    },
  };
}

/**
 * The hash covers every mapped value (not what overwrite policy left), so a skipped `ifEmpty` value is not "changed"
 * forever.
 */
function fullRecord(byKey: Map<string, { record: CrmRecord }>, key: string): CrmRecord {
  const entry = byKey.get(key);
  if (entry === undefined) throw new Error(`unknown key in write batch`);
  return entry.record;
}

function isEmpty(value: CrmValue | undefined): boolean {
  return value === undefined || value === null || value === '';
}

/** Drops `ifEmpty` fields the CRM already has a value for, and `never` fields of existing records. */
function withoutGuarded(record: CrmRecord, mapping: FieldMapping, existing: Record<string, CrmValue>): CrmRecord {
  const properties = { ...record.properties };
  for (const f of mapping.fields) {
    if (f.overwrite === 'never' || (f.overwrite === 'ifEmpty' && !isEmpty(existing[f.field])))
      delete properties[f.field];
  }
  return { ...record, properties };
}
