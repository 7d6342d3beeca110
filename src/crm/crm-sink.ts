/**
 * The one small interface every CRM implements. A sink knows its CRM's wire contract and limits, nothing about
 * the Sales-Intelligence API or BullMQ. Records arrive already mapped to CRM field names.
 */
import type { CrmRecord, CrmValue, ObjectTarget } from './crm-record.js';
import type { FieldMapping } from './field-mapping.js';

export type { CrmRecord, CrmValue, ObjectTarget };

export type UpsertOutcome =
  | { key: string; status: 'created' | 'updated'; crmId: string; linkError?: string; linked?: true }
  /** `field`: the CRM field the refusal names, when it names one (rejects are grouped by code and field). */
  | { key: string; status: 'rejected'; code: string; reason: string; field?: string };

export interface SinkCallOptions {
  signal?: AbortSignal;
}

/** What one membership change did, by CRM record id: ids already (or never) members are in none of them. */
export interface ListChange {
  added: string[];
  removed: string[];
  /** Ids the CRM does not know (deleted there): nothing was done for them. */
  missing: string[];
}

/**
 * A CRM list holding a search's records (a HubSpot MANUAL list; later a Salesforce Campaign), by CRM record id.
 * `object` is the sink's object name (`companies`, `contacts`). Errors are typed like every sink call; an unknown
 * list is CrmListError `crm_list_not_found`.
 */
export interface ListPort {
  /** The id of the list called `name` (found case-insensitively, or created empty); store it. */
  ensureList(object: string, name: string, options?: SinkCallOptions): Promise<string>;
  /** Adds and removes members, in batches the CRM takes. */
  changeMembers(listId: string, add: string[], remove: string[], options?: SinkCallOptions): Promise<ListChange>;
  /** Every member's CRM id (all pages). */
  members(listId: string, options?: SinkCallOptions): Promise<string[]>;
  /**
   * The CRM record ids of these match keys (by the object's unique `matchField`, in batches the CRM takes); keys
   * the CRM does not hold are absent from the map.
   */
  recordIds(
    object: string,
    matchField: string,
    keys: readonly string[],
    options?: SinkCallOptions,
  ): Promise<Map<string, string>>;
}

/**
 * What archiving records by match key did: `archived` the CRM took, `missing` it no longer holds (never written,
 * or already archived or deleted: nothing to do), `refused` it kept (with the first refusal's reason, redacted).
 */
export interface ArchiveResult {
  archived: string[];
  missing: string[];
  refused: string[];
  reason?: string;
}

/** How `forget --crm` erases a person's CRM record. */
export type EraseMode = 'gdpr-delete' | 'archive';

export interface CrmSink {
  /** The destination type it writes (its port's `type`, src/crm/destination-port.ts). */
  readonly kind: string;
  /**
   * Before any search request of a run (dry runs too) and in `validate --online`: the credentials, the object, every
   * mapped field (exists, writable, type), the match field (unique / External ID) and, on Salesforce, every field
   * required on create. Throws CrmAuthError, CrmSchemaError (no such object) or CrmPreflightError (every field
   * problem at once); changes nothing. A passing check is kept per process for a while (src/crm/preflight-cache.ts).
   */
  preflight(mapping: FieldMapping, options?: SinkCallOptions): Promise<void>;
  /**
   * Which of these fields of `object` hold a day, not an instant (HubSpot and Salesforce `date`): `$now` is written
   * there as its UTC day (src/crm/leave-value.ts). Absent: every field takes the instant.
   */
  dayFields?(object: string, fields: readonly string[], options?: SinkCallOptions): Promise<Set<string>>;
  /** Checks (or on HubSpot creates) the unique match field and checks every mapped field exists. */
  prepare(target: ObjectTarget, options?: SinkCallOptions): Promise<void>;
  /** Current values of `fields` for the records with these keys (missing keys are absent from the map). */
  readCurrent(
    target: ObjectTarget,
    keys: string[],
    fields: string[],
    options?: SinkCallOptions,
  ): Promise<Map<string, Record<string, CrmValue>>>;
  /** Upserts a batch; exactly one outcome per input record, in input order. Never drops a record silently. */
  upsert(
    target: ObjectTarget,
    records: CrmRecord[],
    options?: SinkCallOptions & { runVolume?: number },
  ): Promise<UpsertOutcome[]>;
  /**
   * The most records per second the destination takes now, as learned from its answers (e.g. a HubSpot portal's
   * answered requests per 10 s × a batch), read again whenever the walk re-sizes; absent (or null): no short-window
   * limit. Before the first answer it is the port's `ceiling` (src/crm/destination-port.ts).
   */
  ceiling?(): number | null;
  /** Records per upsert call the sink wants for a run of this many records (Salesforce switches to Bulk API 2.0). */
  preferredBatchSize(runVolume: number): number;
  /**
   * The CRM instance records land in (`hubspot:<portalId>`, `salesforce:<orgId>`): change hashes and rejects are
   * kept per instance, so a new or restored portal/org gets a full sync. Optional for test doubles.
   */
  identity?(options?: SinkCallOptions): Promise<string>;
  /** The CRM's lists, where the sink has them (HubSpot). */
  readonly lists?: ListPort;
  /**
   * Archives (or deletes, where the CRM has no archive) the records with these match keys, resolving the keys to
   * its own ids; in batches the CRM takes. Where the sink has it, its port says `archives: true`
   * (src/crm/destination-port.ts) and `onLeave: archive` is allowed.
   */
  archive?(target: ObjectTarget, keys: readonly string[], options?: SinkCallOptions): Promise<ArchiveResult>;
  /**
   * Opt-outs kept in the CRM (`suppress.crm`): the match keys of `target.object` records where any of `fields` (each
   * a boolean) is true, page by page, inside the CRM's limits; records without a match key are passed over. A key
   * may come in more than one page. Absent: the destination has no opt-outs to read.
   */
  optedOut?(target: ObjectTarget, fields: readonly string[], options?: SinkCallOptions): AsyncIterable<string[]>;

  /**
   * Erases persons on request (`forget --crm`, docs/data-protection.md), found by match key: `gdpr-delete` removes
   * them for good where the CRM has such a call (HubSpot's GDPR delete), `archive` as `archive` does (HubSpot:
   * restorable for 90 days; Salesforce deletes either way, to its Recycle Bin). `archived` lists the keys erased.
   */
  erase?(
    target: ObjectTarget,
    keys: readonly string[],
    how: EraseMode,
    options?: SinkCallOptions,
  ): Promise<ArchiveResult>;
  close(): Promise<void>;
}
