/**
 * What a HubSpot run needs of the portal, checked before any search request (`HubSpotSink.preflight`): the token
 * (the property listing answers 401 to a wrong one), the object, each mapped property (exists, takes a value, type),
 * the match properties (unique where they exist; a missing one is created by `prepare`), each property
 * `onLeave: setFields` writes (exists, takes a value, fits the value). HubSpot requires no
 * property on create through the API, so there is no required-field check here. Each opt-out property
 * (`suppress.crm`) must exist and be a bool. One or two property listings.
 */
import type { Property } from '@hubspot/api-client/lib/codegen/crm/properties/index.js';
import type { FieldMapping } from '../field-mapping.js';
import { CrmPreflightError, type PreflightProblem } from '../preflight-error.js';
import { describeLeaveValue, leaveValueKind } from '../leave-value.js';
import { accepts, dayHint, describeSource, valueKindOf, type FieldClass } from '../value-kind.js';
import type { HubSpotCaller } from './hubspot-caller.js';

/** HubSpot property types (`type`, not `fieldType`) by what they take; every value is sent as a string. */
const CLASSES: Readonly<Record<string, FieldClass>> = {
  string: 'text',
  enumeration: 'text',
  phone_number: 'text',
  number: 'number',
  bool: 'boolean',
  date: 'date',
  datetime: 'datetime',
};

export async function propertiesOf(
  caller: HubSpotCaller,
  object: string,
  signal?: AbortSignal,
): Promise<Map<string, Property>> {
  const answer = await caller.call(
    (c) => c.crm.properties.coreApi.getAllWithHttpInfo(object),
    { operation: 'listing properties', object },
    signal,
  );
  return new Map(answer.results.map((p) => [p.name, p]));
}

const classOf = (p: Property): FieldClass => CLASSES[p.type] ?? 'text';

/** The properties among `fields` of type `date`: HubSpot takes only midnight UTC there. One property listing. */
export async function hubspotDayFields(
  caller: HubSpotCaller,
  object: string,
  fields: readonly string[],
  signal?: AbortSignal,
): Promise<Set<string>> {
  const known = await propertiesOf(caller, object, signal);
  return new Set(fields.filter((f) => known.get(f)?.type === 'date'));
}

function readOnly(p: Property): boolean {
  return p.modificationMetadata?.readOnlyValue === true || p.calculated === true;
}

/** A match property that exists must be unique and writable (its value is sent with every record). */
function matchProblem(
  object: string,
  name: string,
  p: Property | undefined,
  at: PreflightProblem['at'],
): PreflightProblem | undefined {
  if (p === undefined) return undefined;
  if (p.hasUniqueValue !== true)
    return {
      at,
      field: name,
      message: `property ${object}.${name} is not unique (hasUniqueValue false): a match property must be`,
    };
  if (readOnly(p)) return { at, field: name, message: `property ${object}.${name} is read-only` };
  return undefined;
}

/** `suppress.crm.fields`: each must exist on the object and be a checkbox (read as true / false). */
function optOutProblems(object: string, known: Map<string, Property>, mapping: FieldMapping): PreflightProblem[] {
  const problems: PreflightProblem[] = [];
  for (const field of mapping.optOutFields ?? []) {
    const p = known.get(field);
    const at = 'suppress';
    if (p === undefined)
      problems.push({
        at,
        field,
        message: `property ${object}.${field} (suppress.crm) does not exist (create it in HubSpot or fix suppress.crm)`,
      });
    else if (p.type !== 'bool' && p.fieldType !== 'booleancheckbox')
      problems.push({
        at,
        field,
        message: `property ${object}.${field} (suppress.crm) is of type ${p.type}; an opt-out is a bool property`,
      });
  }
  return problems;
}

export async function preflightHubSpot(
  caller: HubSpotCaller,
  mapping: FieldMapping,
  signal?: AbortSignal,
): Promise<void> {
  const { target } = mapping;
  const known = await propertiesOf(caller, target.object, signal);
  const problems: PreflightProblem[] = [];
  const match = matchProblem(target.object, target.matchField, known.get(target.matchField), 'matchOn');
  if (match) problems.push(match);
  for (const f of mapping.fields) {
    const p = known.get(f.field);
    const at = 'fields';
    if (p === undefined)
      problems.push({
        at,
        field: f.field,
        message: `property ${target.object}.${f.field} does not exist (create it in HubSpot or fix the mapping)`,
      });
    else if (readOnly(p))
      problems.push({ at, field: f.field, message: `property ${target.object}.${f.field} is read-only` });
    else if (!accepts(classOf(p), valueKindOf(f), f.constant))
      problems.push({
        at,
        field: f.field,
        message:
          `property ${target.object}.${f.field} is of type ${p.type}; ${describeSource(f)} does not fit it` +
          dayHint(classOf(p), valueKindOf(f)),
      });
  }
  for (const f of mapping.leaveFields ?? []) {
    const p = known.get(f.field);
    const at = 'onLeave';
    const name = `${target.object}.${f.field}`;
    if (p === undefined)
      problems.push({
        at,
        field: f.field,
        message: `property ${name} (onLeave.setFields) does not exist (create it in HubSpot or fix onLeave)`,
      });
    else if (readOnly(p))
      problems.push({ at, field: f.field, message: `property ${name} (onLeave.setFields) is read-only` });
    else if (!accepts(classOf(p), leaveValueKind(f.value), f.value ?? undefined))
      problems.push({
        at,
        field: f.field,
        message:
          `property ${name} is of type ${p.type}; ${describeLeaveValue(f.value)} does not fit it` +
          dayHint(classOf(p), leaveValueKind(f.value)),
      });
  }
  problems.push(...optOutProblems(target.object, known, mapping));
  if (target.associate !== undefined) {
    const companies = await propertiesOf(caller, target.associate.object, signal);
    const link = matchProblem(
      target.associate.object,
      target.associate.matchField,
      companies.get(target.associate.matchField),
      'associate',
    );
    if (link) problems.push(link);
  }
  if (problems.length > 0) throw new CrmPreflightError('HubSpot', target.object, problems);
}
