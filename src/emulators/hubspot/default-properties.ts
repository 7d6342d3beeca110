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
  createdAt: string;
  updatedAt: string;
}

export const OBJECT_TYPE_IDS: Record<string, string> = { contacts: '0-1', companies: '0-2' };

function prop(name: string, type = 'string', hasUniqueValue = false): PropertyDef {
  const at = '2020-01-01T00:00:00.000Z';
  const fieldType = type === 'number' ? 'number' : type === 'date' ? 'date' : 'text';
  return { name, label: name, type, fieldType, groupName: 'default', description: '', hasUniqueValue, options: [], hubspotDefined: true, createdAt: at, updatedAt: at };
}

/** A small, realistic subset of HubSpot's built-in properties. `email` is unique on contacts; `domain` is NOT unique. */
export function defaultProperties(objectType: string): PropertyDef[] {
  const common = [prop('hs_object_id', 'number'), prop('createdate', 'datetime'), prop('lastmodifieddate', 'datetime')];
  if (objectType === 'contacts') {
    return [
      ...common, prop('email', 'string', true), prop('firstname'), prop('lastname'), prop('jobtitle'), prop('phone'),
      prop('mobilephone'), prop('company'), prop('city'), prop('country'), prop('state'), prop('website'), prop('hs_language'),
    ];
  }
  return [
    ...common, prop('name'), prop('domain'), prop('website'), prop('industry'), prop('numberofemployees', 'number'),
    prop('annualrevenue', 'number'), prop('city'), prop('country'), prop('state'), prop('description'), prop('founded_year'),
  ];
}
