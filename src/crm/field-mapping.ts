import type { CrmRecord, CrmValue, ObjectTarget } from './crm-record.js';
import { CrmMappingConfigError } from './errors.js';
import { parseRecordPath, readPath, type RecordPath } from './record-path.js';
import { applyTransform, isTransformName, TransformFailure, TRANSFORMS, type TransformName } from './transforms.js';

/**
 * `always` (default) writes every run; `ifEmpty` writes only where the CRM has no value yet;
 * `never` writes only when the record is created.
 */
export type OverwritePolicy = 'always' | 'ifEmpty' | 'never';

/** A search's mapping as written in the config (docs/contract.md `matchOn` / `fields` / `associate`). */
export interface FieldMappingConfig {
  matchOn: { field: string; from: string };
  /** A record path, `{from, transform?, overwrite?}`, or a constant `{value, overwrite?}` written to every record. */
  fields: Record<
    string,
    | string
    | { from: string; transform?: string; overwrite?: OverwritePolicy }
    | { value: ConstantValue; overwrite?: OverwritePolicy }
  >;
  associate?: { company: { from: string } };
  /** The search's CRM list (`list: {name}`): the preflight checks the CRM can hold the object in a list. */
  list?: { name: string };
  /**
   * `onLeave: {setFields}`: written on the search's confirmed leavers; the preflight checks them like mapped fields.
   */
  setOnLeave?: Record<string, CrmValue>;
  /** `suppress.crm.fields`: boolean fields of the object whose true marks an opt-out; the preflight checks them. */
  optOutFields?: readonly string[];
}

/** A field `onLeave: setFields` writes on confirmed leavers, with its value (`$now`: the time of the run). */
export interface LeaveField {
  field: string;
  value: CrmValue;
}

/** Where the mapped records go; `associate` names the company object and match field persons link to. */
export interface MappingObjectInfo {
  object: string;
  associate?: { object: string; matchField: string };
}

/** A mapped field's fixed value (config `{value: ...}`): the same for every record. */
export type ConstantValue = string | number | boolean;

/** A CRM field and where its value comes from: a record path (`path`, `from`) or a constant (`constant`). */
export type MappedField = {
  field: string;
  transform: TransformName | undefined;
  overwrite: OverwritePolicy;
} & (
  | { from: string; path: RecordPath; constant?: undefined }
  | { from?: undefined; path?: undefined; constant: ConstantValue }
);

export interface FieldMapping {
  target: ObjectTarget;
  matchFrom: RecordPath;
  fields: MappedField[];
  companyFrom: RecordPath | undefined;
  /** The search's CRM list, when it has one. */
  list?: { name: string };
  /** The search's `onLeave.setFields`, for the preflight; absent or empty: none. */
  leaveFields?: readonly LeaveField[];
  /** Boolean fields of the object marking an opt-out (`suppress.crm`); absent or empty: none read. */
  optOutFields?: readonly string[];
}

export type MapResult =
  | { ok: true; record: CrmRecord }
  | {
      ok: false;
      key: string | undefined;
      code: 'missing_match_key' | 'transform_failed';
      reason: string;
      field?: string;
    };

function pathOf(path: string, where: string): RecordPath {
  const parsed = parseRecordPath(path);
  if (parsed === undefined)
    throw new CrmMappingConfigError(`${where}: "${path}" is not a record path (use dots: a.b or a.0.b)`, {
      where,
      path,
    });
  return parsed;
}

/** Checks and compiles a search's mapping once per run; throws `CrmMappingConfigError` on a bad config. */
export function compileFieldMapping(config: FieldMappingConfig, info: MappingObjectInfo): FieldMapping {
  const matchField = config.matchOn.field;
  const fields: MappedField[] = Object.entries(config.fields).map(([field, spec]): MappedField => {
    if (field === matchField) {
      throw new CrmMappingConfigError(
        `fields.${field}: the match field is written from matchOn.from; remove it from fields`,
        { field },
      );
    }
    if (typeof spec !== 'string' && 'value' in spec) {
      const constant = spec.value as unknown;
      if (!isConstant(constant))
        throw new CrmMappingConfigError(`fields.${field}.value: a constant is a string, a finite number or a boolean`, {
          field,
        });
      return { field, constant, transform: undefined, overwrite: spec.overwrite ?? 'always' };
    }
    const { from, transform, overwrite } =
      typeof spec === 'string' ? { from: spec, transform: undefined, overwrite: undefined } : spec;
    if (transform !== undefined && !isTransformName(transform)) {
      throw new CrmMappingConfigError(
        `fields.${field}: unknown transform "${transform}" (known: ${TRANSFORMS.join(', ')})`,
        { field, transform },
      );
    }
    return { field, from, path: pathOf(from, `fields.${field}`), transform, overwrite: overwrite ?? 'always' };
  });
  if (config.associate !== undefined && info.associate === undefined) {
    throw new CrmMappingConfigError(`associate: object ${info.object} has no company object to link to`, {
      object: info.object,
    });
  }
  return {
    target: {
      object: info.object,
      matchField,
      fields: fields.map((f) => f.field),
      ...(config.associate !== undefined && info.associate !== undefined ? { associate: info.associate } : {}),
    },
    matchFrom: pathOf(config.matchOn.from, 'matchOn.from'),
    fields,
    companyFrom:
      config.associate === undefined ? undefined : pathOf(config.associate.company.from, 'associate.company.from'),
    ...(config.list === undefined ? {} : { list: { name: config.list.name } }),
    ...(config.setOnLeave === undefined
      ? {}
      : { leaveFields: Object.entries(config.setOnLeave).map(([field, value]) => ({ field, value })) }),
    ...(config.optOutFields?.length ? { optOutFields: [...new Set(config.optOutFields)] } : {}),
  };
}

function isConstant(value: unknown): value is ConstantValue {
  return (
    typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))
  );
}

function keyOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() === '' ? undefined : value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

/** Maps one source record; a bad record yields a reject reason instead of throwing. */
export function mapRecord(mapping: FieldMapping, source: unknown): MapResult {
  const key = keyOf(readPath(source, mapping.matchFrom));
  if (key === undefined)
    return { ok: false, key: undefined, code: 'missing_match_key', reason: 'the record has no value at matchOn.from' };
  const properties: Record<string, CrmValue> = {};
  for (const f of mapping.fields) {
    try {
      const value = f.path === undefined ? f.constant : applyTransform(f.transform, readPath(source, f.path));
      if (value !== undefined) properties[f.field] = value;
    } catch (err) {
      if (!(err instanceof TransformFailure)) throw err;
      return {
        ok: false,
        key,
        code: 'transform_failed',
        reason: `field ${f.field} (${f.transform ?? 'none'}): ${err.message}`,
        field: f.field,
      };
    }
  }
  const companyKey = mapping.companyFrom === undefined ? undefined : keyOf(readPath(source, mapping.companyFrom));
  return { ok: true, record: { key, properties, ...(companyKey !== undefined ? { companyKey } : {}) } };
}
