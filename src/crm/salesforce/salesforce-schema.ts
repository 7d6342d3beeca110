import type { Logger } from '../../shared/logger.js';
import type { CrmRecord, ObjectTarget } from '../crm-sink.js';
import type { SalesforceCaller } from './salesforce-caller.js';
import { SalesforceRequestError, SalesforceSchemaError } from './salesforce-errors.js';

/** What a target's describe calls told: checked once per target, never changing the schema. */
export interface PreparedTarget {
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

export async function describeFields(
  caller: SalesforceCaller,
  object: string,
  signal?: AbortSignal,
): Promise<DescribeField[]> {
  try {
    const described = await caller.call((conn) => conn.describe(object), signal);
    return described.fields as DescribeField[];
  } catch (err) {
    if (err instanceof SalesforceRequestError) {
      throw new SalesforceSchemaError(
        `Salesforce object ${object} does not exist or is not accessible to the integration user`,
        { object },
      );
    }
    throw err;
  }
}

async function describeTarget(
  caller: SalesforceCaller,
  log: Logger,
  target: ObjectTarget,
  signal?: AbortSignal,
): Promise<PreparedTarget> {
  const fields = await describeFields(caller, target.object, signal);
  const byName = new Map(fields.map((f) => [f.name.toLowerCase(), f]));
  const match = byName.get(target.matchField.toLowerCase());
  if (!match?.externalId) {
    throw new SalesforceSchemaError(
      match
        ? `Salesforce field ${target.object}.${target.matchField} is not marked External ID; mark it External ID ` +
            `(and Unique) in Setup — prospect-sync never changes the Salesforce schema`
        : `Salesforce field ${target.object}.${target.matchField} does not exist; create it as a Text field ` +
            `marked External ID and Unique — prospect-sync never changes the Salesforce schema`,
      { object: target.object, field: target.matchField },
    );
  }
  if (!match.unique)
    log.warn(
      { object: target.object, field: target.matchField },
      'match field is an External ID but not Unique: duplicates would make upserts fail',
    );
  const missing = target.fields.filter((f) => !byName.has(f.toLowerCase()));
  if (missing.length > 0) {
    throw new SalesforceSchemaError(
      `Salesforce object ${target.object} has no field(s) ${missing.join(', ')} (mapped in the config)`,
      { object: target.object, fields: missing },
    );
  }
  const canonical = new Map(fields.map((f) => [f.name.toLowerCase(), f.name]));
  if (!target.associate) return { relationship: undefined, canonical };
  const reference = fields.find(
    (f) => f.referenceTo?.some((r) => r.toLowerCase() === target.associate!.object.toLowerCase()) && f.relationshipName,
  );
  if (!reference) {
    throw new SalesforceSchemaError(
      `Salesforce object ${target.object} has no lookup to ${target.associate.object}, so its records cannot be ` +
        `linked to a company`,
      { object: target.object, parent: target.associate.object },
    );
  }
  const parentFields = await describeFields(caller, target.associate.object, signal);
  const parentMatch = parentFields.find((f) => f.name.toLowerCase() === target.associate!.matchField.toLowerCase());
  if (!parentMatch?.externalId) {
    throw new SalesforceSchemaError(
      `Salesforce field ${target.associate.object}.${target.associate.matchField} must exist and be an External ` +
        `ID to link ${target.object} records`,
      { object: target.associate.object, field: target.associate.matchField },
    );
  }
  return { relationship: reference.relationshipName!, canonical };
}

/**
 * The org's schema as the sink needs it, checked once per target (`describe`; a failed check is asked again next
 * time): the match field must be an External ID, mapped fields must exist, persons need a lookup to the parent.
 */
export class SalesforceSchema {
  private readonly prepared = new Map<string, Promise<PreparedTarget>>();

  constructor(
    private readonly caller: SalesforceCaller,
    private readonly log: Logger,
  ) {}

  prepare(target: ObjectTarget, signal?: AbortSignal): Promise<PreparedTarget> {
    const cacheKey = JSON.stringify([target.object, target.matchField, target.fields, target.associate]);
    let prepared = this.prepared.get(cacheKey);
    if (!prepared) {
      prepared = describeTarget(this.caller, this.log, target, signal);
      prepared.catch(() => this.prepared.delete(cacheKey));
      this.prepared.set(cacheKey, prepared);
    }
    return prepared;
  }

  clear(): void {
    this.prepared.clear();
  }
}

/** A field name as Salesforce spells it (`name` itself when the object has no such field). */
export function spelled(canonical: Map<string, string>, name: string): string {
  return canonical.get(name.toLowerCase()) ?? name;
}

/**
 * Records and target with Salesforce's spelling of every field: jsforce would read a property called `type` as the
 * sObject type.
 */
export function spellRecords(
  prepared: PreparedTarget,
  target: ObjectTarget,
  records: CrmRecord[],
): { target: ObjectTarget; records: CrmRecord[] } {
  const { canonical } = prepared;
  return {
    target: { ...target, matchField: spelled(canonical, target.matchField) },
    records: records.map((r) => ({
      ...r,
      properties: Object.fromEntries(Object.entries(r.properties).map(([k, v]) => [spelled(canonical, k), v])),
    })),
  };
}
