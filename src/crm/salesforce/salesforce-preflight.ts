/**
 * What a Salesforce run needs of the org, checked before any search request (`SalesforceSink.preflight`): the
 * client-credentials grant (the first describe authorizes), the object, each mapped field (exists, createable,
 * updateable unless written on create only, type), the match field (an External ID), every field the org requires
 * on create (`nillable: false`, `createable`, not `defaultedOnCreate`) mapped or given a constant, each field
 * `onLeave: setFields` writes (exists, updateable, type), for `associate` the lookup to the company object and its
 * External ID, each opt-out field (`suppress.crm`: exists, boolean), and for a `list:` of Accounts that the org
 * takes Accounts as campaign members. One describe per object; prospect-sync never changes the schema.
 */
import type { FieldMapping } from '../field-mapping.js';
import { CrmPreflightError, type PreflightProblem } from '../preflight-error.js';
import { describeLeaveValue, leaveValueKind } from '../leave-value.js';
import { accepts, dayHint, describeSource, valueKindOf, type FieldClass } from '../value-kind.js';

/** The parts of a describe field (`GET /sobjects/{object}/describe`) a preflight reads. */
export interface DescribedField {
  name: string;
  type: string;
  externalId?: boolean;
  nillable?: boolean;
  createable?: boolean;
  updateable?: boolean;
  defaultedOnCreate?: boolean;
  referenceTo?: string[] | null;
  relationshipName?: string | null;
}

export type DescribeObject = (object: string) => Promise<readonly DescribedField[]>;

/** Salesforce field types by what they take. Ids, lookups and compound fields take nothing a mapping writes. */
const CLASSES: Readonly<Record<string, FieldClass>> = {
  int: 'number',
  double: 'number',
  currency: 'number',
  percent: 'number',
  long: 'number',
  boolean: 'boolean',
  date: 'date',
  datetime: 'datetime',
  time: 'text',
  id: 'none',
  reference: 'none',
  address: 'none',
  location: 'none',
  base64: 'none',
};

const classOf = (d: DescribedField): FieldClass => CLASSES[d.type] ?? 'text';

function fieldProblems(object: string, byName: Map<string, DescribedField>, mapping: FieldMapping): PreflightProblem[] {
  const problems: PreflightProblem[] = [];
  for (const f of mapping.fields) {
    const d = byName.get(f.field.toLowerCase());
    const at = 'fields';
    const name = `${object}.${f.field}`;
    if (d === undefined)
      problems.push({
        at,
        field: f.field,
        message: `field ${name} does not exist (create it in Salesforce or fix the mapping)`,
      });
    else if (d.createable !== true)
      problems.push({
        at,
        field: f.field,
        message: `field ${name} is not createable (read-only for the integration user)`,
      });
    else if (d.updateable !== true && f.overwrite !== 'never')
      problems.push({
        at,
        field: f.field,
        message: `field ${name} is not updateable: map it with overwrite: never (written on create only)`,
      });
    else if (!accepts(classOf(d), valueKindOf(f), f.constant))
      problems.push({
        at,
        field: f.field,
        message:
          `field ${name} is of type ${d.type}; ${describeSource(f)} does not fit it` +
          dayHint(classOf(d), valueKindOf(f)),
      });
  }
  return problems;
}

/** Fields `onLeave: setFields` writes on existing records: each must exist, be updateable and fit its value. */
function leaveProblems(object: string, byName: Map<string, DescribedField>, mapping: FieldMapping): PreflightProblem[] {
  const problems: PreflightProblem[] = [];
  for (const f of mapping.leaveFields ?? []) {
    const d = byName.get(f.field.toLowerCase());
    const at = 'onLeave';
    const name = `${object}.${f.field}`;
    if (d === undefined)
      problems.push({
        at,
        field: f.field,
        message: `field ${name} (onLeave.setFields) does not exist (create it in Salesforce or fix onLeave)`,
      });
    else if (d.updateable !== true)
      problems.push({
        at,
        field: f.field,
        message: `field ${name} (onLeave.setFields) is not updateable (read-only for the integration user)`,
      });
    else if (!accepts(classOf(d), leaveValueKind(f.value), f.value ?? undefined))
      problems.push({
        at,
        field: f.field,
        message:
          `field ${name} is of type ${d.type}; ${describeLeaveValue(f.value)} does not fit it` +
          dayHint(classOf(d), leaveValueKind(f.value)),
      });
  }
  return problems;
}

/** `suppress.crm.fields`: each must exist on the object and be a checkbox (`boolean`). */
function optOutProblems(
  object: string,
  byName: Map<string, DescribedField>,
  mapping: FieldMapping,
): PreflightProblem[] {
  const problems: PreflightProblem[] = [];
  for (const field of mapping.optOutFields ?? []) {
    const d = byName.get(field.toLowerCase());
    const at = 'suppress';
    if (d === undefined)
      problems.push({
        at,
        field,
        message: `field ${object}.${field} (suppress.crm) does not exist (create it in Salesforce or fix suppress.crm)`,
      });
    else if (d.type !== 'boolean')
      problems.push({
        at,
        field,
        message: `field ${object}.${field} (suppress.crm) is of type ${d.type}; an opt-out is a boolean field`,
      });
  }
  return problems;
}

/** Fields the org requires on create that neither the mapping, the match field nor the company link fills. */
function requiredProblems(
  object: string,
  fields: readonly DescribedField[],
  mapping: FieldMapping,
  link: DescribedField | undefined,
): PreflightProblem[] {
  const filled = new Set(
    [mapping.target.matchField, ...mapping.fields.map((f) => f.field), ...(link ? [link.name] : [])].map((n) =>
      n.toLowerCase(),
    ),
  );
  return fields
    .filter(
      (d) =>
        d.nillable === false &&
        d.createable === true &&
        d.defaultedOnCreate !== true &&
        !filled.has(d.name.toLowerCase()),
    )
    .map((d) => ({
      at: 'object' as const,
      field: d.name,
      message:
        `field ${object}.${d.name} is required on create and has no mapping: map it or give it a constant ` +
        `({value: ...})`,
    }));
}

/**
 * A campaign holds Accounts only where the org enables "Accounts as Campaign Members": only then does CampaignMember
 * have a createable AccountId.
 */
async function accountListProblems(describe: DescribeObject, list: string): Promise<PreflightProblem[]> {
  const accountId = (await describe('CampaignMember')).find((f) => f.name.toLowerCase() === 'accountid');
  if (accountId?.createable === true) return [];
  return [
    {
      at: 'list',
      field: 'CampaignMember.AccountId',
      message:
        `list "${list}" holds Accounts, but this org does not take Accounts as campaign members (CampaignMember ` +
        `has no createable AccountId): enable "Accounts as Campaign Members" in Setup > Campaign Settings, or drop ` +
        `list: and mark the search's Accounts with a field instead (onLeave: {setFields: {...}} and a mapped ` +
        `constant such as si_search_<name>__c: {value: true})`,
    },
  ];
}

export async function preflightSalesforce(describe: DescribeObject, mapping: FieldMapping): Promise<void> {
  const { target } = mapping;
  const fields = await describe(target.object);
  const byName = new Map(fields.map((f) => [f.name.toLowerCase(), f]));
  const problems: PreflightProblem[] = [];
  const match = byName.get(target.matchField.toLowerCase());
  if (match?.externalId !== true) {
    const state = match ? 'is not marked External ID' : 'does not exist';
    problems.push({
      at: 'matchOn',
      field: target.matchField,
      message:
        `match field ${target.object}.${target.matchField} ${state}: it must be a field marked External ID (and ` +
        `Unique)`,
    });
  }
  problems.push(...fieldProblems(target.object, byName, mapping));
  problems.push(...leaveProblems(target.object, byName, mapping));
  problems.push(...optOutProblems(target.object, byName, mapping));
  let link: DescribedField | undefined;
  if (target.associate !== undefined) {
    const parent = target.associate;
    link = fields.find(
      (f) => f.relationshipName && f.referenceTo?.some((r) => r.toLowerCase() === parent.object.toLowerCase()),
    );
    if (link === undefined)
      problems.push({
        at: 'associate',
        field: parent.object,
        message: `object ${target.object} has no lookup to ${parent.object}`,
      });
    const parentMatch = (await describe(parent.object)).find(
      (f) => f.name.toLowerCase() === parent.matchField.toLowerCase(),
    );
    if (parentMatch?.externalId !== true)
      problems.push({
        at: 'associate',
        field: parent.matchField,
        message:
          `field ${parent.object}.${parent.matchField} must exist and be an External ID to link ${target.object} ` +
          `records`,
      });
  }
  problems.push(...requiredProblems(target.object, fields, mapping, link));
  if (mapping.list !== undefined && target.object.toLowerCase() === 'account')
    problems.push(...(await accountListProblems(describe, mapping.list.name)));
  if (problems.length > 0) throw new CrmPreflightError('Salesforce', target.object, problems);
}
