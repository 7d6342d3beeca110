/** A property definition as HubSpot's properties API returns it (the fields the client deserializes). */
export interface PropertyDef {
  name: string;
  label: string;
  type: string;
  fieldType: string;
  groupName: string;
  description: string;
  hasUniqueValue: boolean;
  options: { label: string; value: string; displayOrder: number; hidden: boolean }[];
  hubspotDefined: boolean;
  /** What a client may change: `readOnlyValue` properties (ids, system dates) take no value from a write. */
  modificationMetadata: {
    archivable: boolean;
    readOnlyDefinition: boolean;
    readOnlyValue: boolean;
    readOnlyOptions?: boolean;
  };
  createdAt: string;
  updatedAt: string;
}

export const OBJECT_TYPE_IDS: Record<string, string> = { contacts: '0-1', companies: '0-2' };

/** HubSpot sets these itself: a write's value for them is dropped. */
const SYSTEM_VALUES = new Set(['hs_object_id', 'createdate', 'lastmodifieddate']);

/** The metadata of a property a client created: every part of it may change. */
export const WRITABLE: PropertyDef['modificationMetadata'] = {
  archivable: true,
  readOnlyDefinition: false,
  readOnlyValue: false,
};

function prop(name: string, type = 'string', hasUniqueValue = false): PropertyDef {
  const at = '2020-01-01T00:00:00.000Z';
  const fieldType =
    type === 'number' ? 'number' : type === 'date' ? 'date' : type === 'bool' ? 'booleancheckbox' : 'text';
  const modificationMetadata = { archivable: false, readOnlyDefinition: true, readOnlyValue: SYSTEM_VALUES.has(name) };
  return {
    name,
    label: name,
    type,
    fieldType,
    groupName: 'default',
    description: '',
    hasUniqueValue,
    options: [],
    hubspotDefined: true,
    modificationMetadata,
    createdAt: at,
    updatedAt: at,
  };
}

/**
 * A small, realistic subset of HubSpot's built-in properties. `email` is unique on contacts; `domain` is NOT unique.
 */
export function defaultProperties(objectType: string): PropertyDef[] {
  const common = [prop('hs_object_id', 'number'), prop('createdate', 'datetime'), prop('lastmodifieddate', 'datetime')];
  if (objectType === 'contacts') {
    return [
      ...common,
      prop('email', 'string', true),
      prop('firstname'),
      prop('lastname'),
      prop('jobtitle'),
      prop('phone'),
      prop('mobilephone'),
      prop('company'),
      prop('hs_email_optout', 'bool'),
      prop('city'),
      prop('country'),
      prop('state'),
      prop('website'),
      prop('hs_language'),
    ];
  }
  return [
    ...common,
    prop('name'),
    prop('domain'),
    prop('website'),
    prop('industry'),
    prop('numberofemployees', 'number'),
    prop('annualrevenue', 'number'),
    prop('city'),
    prop('country'),
    prop('state'),
    prop('description'),
    prop('founded_year'),
  ];
}
