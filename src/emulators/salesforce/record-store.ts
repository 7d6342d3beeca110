import { findField, type OrgSetting, type SfField, type SfObject, type SfSchema } from './salesforce-schema.js';

export type SfValue = string | number | boolean | null;
export type SfRecord = Record<string, SfValue>;

/** A per-record failure exactly as the REST API reports it inside save results. */
export interface SfRecordError {
  statusCode: string;
  message: string;
  fields: string[];
}

export type UpsertResult = { ok: true; id: string; created: boolean } | { ok: false; errors: SfRecordError[] };

export type DeleteResult = { ok: true; id: string } | { ok: false; errors: SfRecordError[] };

/** A Salesforce id: 15 case-sensitive characters, or 18 with the case-safe suffix. */
const ID_SHAPE = /^[a-zA-Z0-9]{15}(?:[a-zA-Z0-9]{3})?$/;

/** Decides whether a record is refused on purpose (the emulator's "reject chosen records" switch). */
export type RejectRule = (
  object: string,
  externalId: string,
  record: Record<string, unknown>,
) => SfRecordError | undefined;

/** Thrown for request-level problems (unknown object or field): the whole call fails with this status and code. */
export class SfRequestError extends Error {
  constructor(
    readonly status: number,
    readonly errorCode: string,
    message: string,
  ) {
    super(message);
  }
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const ID_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** One undoable change, so allOrNone requests can roll back. */
type UndoStep = () => void;

/**
 * The org's data: records per object, with unique indexes on every unique field. Implements the upsert rules
 * (match by external id, relationship references, required fields, lengths, email format, duplicates).
 */
export class RecordStore {
  private readonly records = new Map<string, Map<string, SfRecord>>();
  /** Deleted records by id (the Recycle Bin, 15 days in Salesforce): no query, upsert or delete sees them as live. */
  readonly recycleBin = new Map<string, { object: string; record: SfRecord }>();
  private readonly indexes = new Map<string, Map<string, Set<string>>>();
  /** Campaign members by `<CampaignId>|<record Id>`: a second member of the pair is refused. */
  private readonly memberPairs = new Set<string>();
  private seq = 0;
  /** The org's settings; "Accounts as Campaign Members" is off by default, as in a new org. */
  readonly settings: Record<OrgSetting, boolean> = { accountsAsCampaignMembers: false };

  constructor(readonly schema: SfSchema) {
    for (const name of Object.keys(schema)) this.records.set(name, new Map());
  }

  /** The object as the org serves it now: fields behind an org setting that is off do not exist. */
  object(name: string): SfObject {
    const object = Object.values(this.schema).find((o) => o.name.toLowerCase() === name.toLowerCase());
    if (!object)
      throw new SfRequestError(
        404,
        'NOT_FOUND',
        `The requested resource does not exist: sObject type '${name}' is not supported.`,
      );
    if (object.fields.every((f) => f.orgSetting === undefined || this.settings[f.orgSetting])) return object;
    return {
      ...object,
      fields: object.fields.filter((f) => f.orgSetting === undefined || this.settings[f.orgSetting]),
    };
  }

  /** The object whose record ids start with this id's key prefix. */
  objectOfId(id: string): SfObject | undefined {
    const object = Object.values(this.schema).find((o) => id.startsWith(o.keyPrefix));
    return object === undefined ? undefined : this.object(object.name);
  }

  all(objectName: string): SfRecord[] {
    return [...(this.records.get(this.object(objectName).name)?.values() ?? [])];
  }

  get(objectName: string, id: string): SfRecord | undefined {
    return this.records.get(this.object(objectName).name)?.get(id);
  }

  /** Ids of the records whose `field` equals `value` (case-insensitive, as Salesforce external ids are by default). */
  findBy(objectName: string, fieldName: string, value: string): SfRecord[] {
    const object = this.object(objectName);
    const field = findField(object, fieldName);
    if (!field) return [];
    if (field.unique || field.externalId) {
      const ids = this.indexes.get(indexKey(object.name, field.name))?.get(value.toLowerCase()) ?? new Set<string>();
      return [...ids].map((id) => this.records.get(object.name)!.get(id)!);
    }
    // SOQL compares text case-insensitively; ids exactly; a checkbox by its value (an unset one is false).
    const same =
      field.type === 'boolean'
        ? (v: SfValue | undefined) => (v === true) === (value === 'true')
        : field.type === 'id' || field.type === 'reference'
          ? (v: SfValue | undefined) => v === value
          : (v: SfValue | undefined) => typeof v === 'string' && v.toLowerCase() === value.toLowerCase();
    return this.all(object.name).filter((r) => same(r[field.name]));
  }

  /**
   * Deletes one record by id, of whatever object (its key prefix says which), as sObject Collections DELETE does:
   * a malformed id, one in the Recycle Bin and one the org never had each fail alone with Salesforce's code. Records
   * whose cascading lookup points at it go with it (an Account's Contacts, a record's campaign memberships).
   */
  delete(id: string, undo: UndoStep[], refuse?: (record: SfRecord) => SfRecordError | undefined): DeleteResult {
    const fail = (statusCode: string, message: string): DeleteResult => ({
      ok: false,
      errors: [{ statusCode, message, fields: [] }],
    });
    if (!ID_SHAPE.test(id)) return fail('MALFORMED_ID', `malformed id ${id}`);
    const object = Object.values(this.schema).find((o) => o.keyPrefix === id.slice(0, 3));
    const table = object === undefined ? undefined : this.records.get(object.name);
    const full = [...(table?.keys() ?? [])].find((k) => k === id || k.slice(0, 15) === id);
    if (this.recycleBin.has(id) || [...this.recycleBin.keys()].some((k) => k.slice(0, 15) === id))
      return fail('ENTITY_IS_DELETED', 'entity is deleted');
    if (object === undefined || table === undefined || full === undefined)
      return fail('INVALID_CROSS_REFERENCE_KEY', 'invalid cross reference id');
    const record = table.get(full)!;
    const refused = refuse?.(record);
    if (refused !== undefined) return { ok: false, errors: [refused] };
    this.remove(object, full, undo);
    return { ok: true, id: full };
  }

  /** Moves a record to the Recycle Bin, and with it the records whose cascading reference points at it. */
  private remove(object: SfObject, id: string, undo: UndoStep[]): void {
    const table = this.records.get(object.name)!;
    const record = table.get(id)!;
    this.unindex(object, record);
    table.delete(id);
    this.recycleBin.set(id, { object: object.name, record });
    undo.push(() => {
      this.recycleBin.delete(id);
      table.set(id, record);
      this.index(object, record);
    });
    for (const child of Object.values(this.schema)) {
      for (const field of child.fields.filter((f) => f.cascadeDelete === true && f.referenceTo === object.name)) {
        for (const row of this.all(child.name).filter((r) => r[field.name] === id))
          this.remove(child, String(row.Id), undo);
      }
    }
  }

  /** The external-id field named in a URL or job, or a request error as Salesforce reports it. */
  externalIdField(object: SfObject, name: string): SfField {
    const field = findField(object, name);
    if (!field || (!field.externalId && field.name !== 'Id')) {
      throw new SfRequestError(
        404,
        'NOT_FOUND',
        `Provided external ID field does not exist or is not accessible: ${name}`,
      );
    }
    return field;
  }

  /**
   * Checks and converts a write's field values: unknown columns throw SfRequestError (the whole request fails, as on
   * Salesforce); a relationship name takes `{ExtField: value}`; a lookup given an Id must name a live record.
   */
  private convertInput(
    object: SfObject,
    input: Record<string, unknown>,
  ): { values: SfRecord; errors: SfRecordError[] } {
    const values: SfRecord = {};
    const errors: SfRecordError[] = [];
    for (const [name, raw] of Object.entries(input)) {
      if (name === 'attributes') continue;
      const field = findField(object, name);
      if (!field) {
        const rel = object.fields.find((f) => f.relationshipName?.toLowerCase() === name.toLowerCase());
        if (!rel)
          throw new SfRequestError(400, 'INVALID_FIELD', `No such column '${name}' on sobject of type ${object.name}`);
        const resolved = this.resolveReference(rel, raw);
        if ('error' in resolved) errors.push(resolved.error);
        else values[rel.name] = resolved.id;
        continue;
      }
      if (field.type === 'id') continue;
      if (field.readOnly === true) {
        errors.push({
          statusCode: 'INVALID_FIELD_FOR_INSERT_UPDATE',
          message:
            `Unable to create/update fields: ${field.name}. Please check the security settings of this field and ` +
            `verify that it is read/write for your profile or permission set.`,
          fields: [field.name],
        });
        continue;
      }
      const converted =
        field.type === 'reference' && raw !== null ? this.lookupId(field, raw) : convertValue(field, raw);
      if ('error' in converted) errors.push(converted.error);
      else values[field.name] = converted.value;
    }
    return { values, errors };
  }

  /** A lookup set to a record Id: the Id must be well formed, of the referenced object, and of a live record. */
  private lookupId(field: SfField, raw: unknown): { value: SfValue } | { error: SfRecordError } {
    const parent = this.object(field.referenceTo!);
    if (typeof raw !== 'string' || !ID_SHAPE.test(raw) || !raw.startsWith(parent.keyPrefix)) {
      return {
        error: {
          statusCode: 'MALFORMED_ID',
          message: `${field.name}: id value of incorrect type: ${String(raw)}`,
          fields: [field.name],
        },
      };
    }
    if (this.recycleBin.has(raw))
      return { error: { statusCode: 'ENTITY_IS_DELETED', message: 'entity is deleted', fields: [] } };
    if (!this.records.get(parent.name)?.has(raw))
      return {
        error: {
          statusCode: 'INVALID_CROSS_REFERENCE_KEY',
          message: 'invalid cross reference id',
          fields: [field.name],
        },
      };
    return { value: raw };
  }

  /**
   * Upserts one record matched on `extField` = `extValue`. `input` holds field values; a key naming a
   * relationship (e.g. `Account`) takes `{ExtField: value}` to reference the parent by its external id.
   * Unknown columns throw SfRequestError (the whole request fails, as on Salesforce).
   */
  upsert(
    object: SfObject,
    extField: SfField,
    extValue: string,
    input: Record<string, unknown>,
    undo: UndoStep[],
    reject?: RejectRule,
  ): UpsertResult {
    const { values, errors } = this.convertInput(object, input);
    values[extField.name] = extValue;
    const rejected = reject?.(object.name, extValue, input);
    if (rejected) errors.push(rejected);
    if (errors.length > 0) return { ok: false, errors };

    const matches = this.findBy(object.name, extField.name, extValue);
    if (matches.length > 1) {
      return {
        ok: false,
        errors: [
          {
            statusCode: 'DUPLICATE_EXTERNAL_ID',
            message:
              `${extField.name}: more than one record found for external id field: ` +
              `[${matches.map((m) => m.Id).join(', ')}]`,
            fields: [extField.name],
          },
        ],
      };
    }
    const existing = matches[0];
    const next: SfRecord = existing ? { ...existing, ...values } : { ...values };
    return this.save(object, existing, next, undo);
  }

  /**
   * Creates one record (`POST sobjects/{type}`, collections create). A CampaignMember links a campaign to a Contact or
   * a Lead (with both, only the Contact is kept), or to an Account where the org allows it; a second member for the
   * same campaign and record is refused.
   */
  create(object: SfObject, input: Record<string, unknown>, undo: UndoStep[], reject?: RejectRule): UpsertResult {
    const { values, errors } = this.convertInput(object, input);
    const rejected = reject?.(object.name, '', input);
    if (rejected) errors.push(rejected);
    if (errors.length > 0) return { ok: false, errors };
    for (const f of object.fields)
      if (f.name === 'Status' && f.defaultedOnCreate && values.Status == null) values.Status = 'Sent';
    if (object.name === 'CampaignMember') {
      const refused = this.memberRefusal(object, values);
      if (refused) return { ok: false, errors: [refused] };
    }
    return this.save(object, undefined, values, undo);
  }

  private memberRefusal(object: SfObject, values: SfRecord): SfRecordError | undefined {
    if (values.ContactId != null) delete values.LeadId;
    const linked = ['ContactId', 'LeadId', 'AccountId'].filter(
      (f) => findField(object, f) !== undefined && values[f] != null,
    );
    if (values.CampaignId == null) return undefined;
    if (linked.length === 0)
      return {
        statusCode: 'REQUIRED_FIELD_MISSING',
        message: 'Required fields are missing: [ContactId, LeadId]',
        fields: ['ContactId', 'LeadId'],
      };
    const field = linked[0]!;
    return this.memberPairs.has(`${String(values.CampaignId)}|${String(values[field])}`)
      ? { statusCode: 'DUPLICATE_VALUE', message: 'Already a campaign member.', fields: [] }
      : undefined;
  }

  /** The required-field and unique checks of a save, then the write. */
  private save(object: SfObject, existing: SfRecord | undefined, next: SfRecord, undo: UndoStep[]): UpsertResult {
    const missing = object.fields
      .filter(
        (f) =>
          f.required &&
          f.defaultedOnCreate !== true &&
          (next[f.name] === undefined || next[f.name] === null || next[f.name] === ''),
      )
      .map((f) => f.name);
    if (missing.length > 0) {
      return {
        ok: false,
        errors: [
          {
            statusCode: 'REQUIRED_FIELD_MISSING',
            message: `Required fields are missing: [${missing.join(', ')}]`,
            fields: missing,
          },
        ],
      };
    }
    const id = existing ? String(existing.Id) : this.newId(object);
    for (const field of object.fields) {
      if (!field.unique || next[field.name] === null || next[field.name] === undefined) continue;
      const holders = this.indexes.get(indexKey(object.name, field.name))?.get(String(next[field.name]).toLowerCase());
      const other = [...(holders ?? [])].find((h) => h !== id);
      if (other) {
        return {
          ok: false,
          errors: [
            {
              statusCode: 'DUPLICATE_VALUE',
              message: `duplicate value found: ${field.name} duplicates value on record with id: ${other}`,
              fields: [field.name],
            },
          ],
        };
      }
    }
    next.Id = id;
    this.write(object, id, existing, next, undo);
    return { ok: true, id, created: !existing };
  }

  private write(object: SfObject, id: string, before: SfRecord | undefined, after: SfRecord, undo: UndoStep[]): void {
    const table = this.records.get(object.name)!;
    if (before) this.unindex(object, before);
    table.set(id, after);
    this.index(object, after);
    undo.push(() => {
      this.unindex(object, after);
      if (before) {
        table.set(id, before);
        this.index(object, before);
      } else {
        table.delete(id);
      }
    });
  }

  private index(object: SfObject, record: SfRecord): void {
    const pair = memberPair(object, record);
    if (pair !== undefined) this.memberPairs.add(pair);
    for (const field of object.fields) {
      if (!(field.unique || field.externalId) || record[field.name] === null || record[field.name] === undefined)
        continue;
      const key = indexKey(object.name, field.name);
      let byValue = this.indexes.get(key);
      if (!byValue) this.indexes.set(key, (byValue = new Map()));
      const value = String(record[field.name]).toLowerCase();
      let ids = byValue.get(value);
      if (!ids) byValue.set(value, (ids = new Set()));
      ids.add(String(record.Id));
    }
  }

  private unindex(object: SfObject, record: SfRecord): void {
    const pair = memberPair(object, record);
    if (pair !== undefined) this.memberPairs.delete(pair);
    for (const field of object.fields) {
      if (record[field.name] === null || record[field.name] === undefined) continue;
      this.indexes
        .get(indexKey(object.name, field.name))
        ?.get(String(record[field.name]).toLowerCase())
        ?.delete(String(record.Id));
    }
  }

  private resolveReference(rel: SfField, raw: unknown): { id: string } | { error: SfRecordError } {
    const parent = this.object(rel.referenceTo!);
    const entries =
      raw !== null && typeof raw === 'object'
        ? Object.entries(raw as Record<string, unknown>).filter(([k]) => k !== 'attributes')
        : [];
    const [ref] = entries;
    if (entries.length !== 1 || !ref || typeof ref[1] !== 'string') {
      return {
        error: {
          statusCode: 'INVALID_FIELD',
          message: `A relationship reference must name exactly one external id field of ${parent.name}`,
          fields: [rel.relationshipName!],
        },
      };
    }
    const parentField = findField(parent, ref[0]);
    if (!parentField?.externalId) {
      return {
        error: {
          statusCode: 'INVALID_FIELD',
          message: `Field ${ref[0]} is not an external id field of ${parent.name}`,
          fields: [rel.relationshipName!],
        },
      };
    }
    const found = this.findBy(parent.name, parentField.name, ref[1]);
    if (found.length !== 1) {
      return {
        error: {
          statusCode: 'INVALID_FIELD',
          message:
            `Foreign key external ID: ${ref[1]} not found for field ${parentField.name} in ` + `entity ${parent.name}`,
          fields: [],
        },
      };
    }
    return { id: String(found[0]!.Id) };
  }

  private newId(object: SfObject): string {
    let n = ++this.seq;
    let body = '';
    for (let i = 0; i < 12; i++) {
      body = ID_ALPHABET[n % 62]! + body;
      n = Math.floor(n / 62);
    }
    return `${object.keyPrefix}${body}AAA`;
  }
}

/** A CampaignMember's campaign and record (its Contact, else Lead, else Account). */
function memberPair(object: SfObject, record: SfRecord): string | undefined {
  if (object.name !== 'CampaignMember') return undefined;
  const linked = record.ContactId ?? record.LeadId ?? record.AccountId;
  return linked == null ? undefined : `${String(record.CampaignId)}|${String(linked)}`;
}

function indexKey(object: string, field: string): string {
  return `${object}.${field}`;
}

/** Checks and converts one JSON (or CSV string) value for a field, as Salesforce would on save. */
function convertValue(field: SfField, raw: unknown): { value: SfValue } | { error: SfRecordError } {
  const fail = (statusCode: string, message: string): { error: SfRecordError } => ({
    error: { statusCode, message, fields: [field.name] },
  });
  if (raw === null) return { value: null };
  switch (field.type) {
    case 'int':
    case 'double': {
      const n = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : Number.NaN;
      if (!Number.isFinite(n) || (field.type === 'int' && !Number.isInteger(n))) {
        return fail('INVALID_TYPE_ON_FIELD_IN_RECORD', `${field.name}: value not of required type: ${String(raw)}`);
      }
      return { value: n };
    }
    case 'boolean':
      if (typeof raw === 'boolean') return { value: raw };
      if (raw === 'true' || raw === 'false') return { value: raw === 'true' };
      return fail('INVALID_TYPE_ON_FIELD_IN_RECORD', `${field.name}: value not of required type: ${String(raw)}`);
    // A date takes YYYY-MM-DD only; a dateTime any ISO 8601 instant.
    case 'date':
    case 'datetime': {
      const ok =
        typeof raw === 'string' &&
        (field.type === 'date' ? /^\d{4}-\d{2}-\d{2}$/.test(raw) : Number.isFinite(Date.parse(raw)));
      if (!ok)
        return fail('INVALID_TYPE_ON_FIELD_IN_RECORD', `${field.name}: value not of required type: ${String(raw)}`);
      return { value: raw };
    }
    default: {
      if (typeof raw !== 'string' && typeof raw !== 'number' && typeof raw !== 'boolean') {
        return fail('INVALID_TYPE_ON_FIELD_IN_RECORD', `${field.name}: value not of required type`);
      }
      const value = String(raw);
      if (field.length !== undefined && [...value].length > field.length) {
        return fail(
          'STRING_TOO_LONG',
          `${field.name}: data value too large: ${value.slice(0, 40)} (max length=${field.length})`,
        );
      }
      if (field.type === 'email' && value !== '' && !EMAIL.test(value)) {
        return fail('INVALID_EMAIL_ADDRESS', `${field.name}: invalid email address: ${value}`);
      }
      return { value: value === '' ? null : value };
    }
  }
}
