import type {
  PropertyCreateFieldTypeEnum,
  PropertyCreateTypeEnum,
} from '@hubspot/api-client/lib/codegen/crm/properties/index.js';
import type { ObjectTarget } from '../crm-sink.js';
import { CrmRequestError, CrmSchemaError } from '../errors.js';
import type { HubSpotCaller } from './hubspot-caller.js';

/** Property group a match property we create goes into, per object (`default` for any other object). */
const PROPERTY_GROUPS: Readonly<Record<string, string>> = {
  contacts: 'contactinformation',
  companies: 'companyinformation',
};

/**
 * The match property must exist and be unique: create it when missing, refuse a non-unique one. Two runs starting on
 * one portal may both find it missing: the one whose create is refused as existing (409) reads it and checks it.
 */
async function ensureUniqueProperty(
  caller: HubSpotCaller,
  object: string,
  name: string,
  known: Map<string, { hasUniqueValue?: boolean }>,
): Promise<void> {
  let existing = known.get(name);
  if (existing === undefined) {
    try {
      await caller.call(
        (c) =>
          c.crm.properties.coreApi.createWithHttpInfo(object, {
            name,
            label: name,
            type: 'string' as PropertyCreateTypeEnum,
            fieldType: 'text' as PropertyCreateFieldTypeEnum,
            groupName: PROPERTY_GROUPS[object] ?? 'default',
            hasUniqueValue: true,
            description: 'Unique id written by prospect-sync (match key)',
          }),
        { operation: `creating property ${name}`, object },
      );
      return;
    } catch (error) {
      if (!(error instanceof CrmRequestError && error.details?.status === 409)) throw error;
      existing = await caller.call((c) => c.crm.properties.coreApi.getByNameWithHttpInfo(object, name), {
        operation: `reading property ${name}`,
        object,
      });
    }
  }
  if (existing.hasUniqueValue !== true) {
    throw new CrmSchemaError(
      `HubSpot property ${object}.${name} is not unique (hasUniqueValue is false); matchOn.field needs a unique ` +
        `property`,
      { object, property: name },
    );
  }
}

async function propertiesOf(caller: HubSpotCaller, object: string): Promise<Map<string, { hasUniqueValue?: boolean }>> {
  const answer = await caller.call((c) => c.crm.properties.coreApi.getAllWithHttpInfo(object), {
    operation: 'listing properties',
    object,
  });
  return new Map(answer.results.map((p) => [p.name, p]));
}

export async function prepareTarget(caller: HubSpotCaller, target: ObjectTarget): Promise<void> {
  const known = await propertiesOf(caller, target.object);
  await ensureUniqueProperty(caller, target.object, target.matchField, known);
  const missing = target.fields.filter((f) => !known.has(f));
  if (missing.length > 0) {
    throw new CrmSchemaError(
      `HubSpot ${target.object} has no propert${missing.length === 1 ? 'y' : 'ies'} ${missing.join(', ')}; ` +
        `create ${missing.length === 1 ? 'it' : 'them'} in HubSpot or fix the mapping`,
      {
        object: target.object,
        missing,
      },
    );
  }
  if (target.associate !== undefined) {
    const companies = await propertiesOf(caller, target.associate.object);
    await ensureUniqueProperty(caller, target.associate.object, target.associate.matchField, companies);
  }
}
