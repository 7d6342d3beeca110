/**
 * What the CRMs are, as facts the rest of the worker asks about: which objects each destination type writes, which
 * entity lands in which object, the company object persons link to, and where a match field comes from when a search
 * does not name one. A leaf module (no clients, no I/O): the config layer imports it to check a search, the run
 * composes sinks from it.
 */

export type DestinationType = 'hubspot' | 'salesforce';
/** The API's record kinds (the source layer's `Entity`, repeated here: crm does not import source). */
export type EntityKind = 'companies' | 'persons';

/** CRM objects per destination type and entity. The first company object is the one persons link to. */
const OBJECTS: Readonly<Record<DestinationType, Readonly<Record<EntityKind, readonly string[]>>>> = {
  hubspot: { companies: ['companies'], persons: ['contacts'] },
  salesforce: { companies: ['Account'], persons: ['Contact', 'Lead'] },
};

/** HubSpot property group a match property we create goes into, per object (`default` for any other object). */
const HUBSPOT_PROPERTY_GROUPS: Readonly<Record<string, string>> = { contacts: 'contactinformation', companies: 'companyinformation' };

/** Every object a destination type writes, companies' first. */
export function objectsOf(type: DestinationType): readonly string[] {
  return [...OBJECTS[type].companies, ...OBJECTS[type].persons];
}

/** The objects `entity` may land in on `type` (companies -> companies/Account; persons -> contacts/Contact/Lead). */
export function objectsFor(type: DestinationType, entity: EntityKind): readonly string[] {
  return OBJECTS[type][entity];
}

/** The company object persons link to (`associate`): HubSpot `companies`, Salesforce `Account`. */
export function companyObjectOf(type: DestinationType): string {
  return OBJECTS[type].companies[0] as string;
}

/**
 * The match field a search writing to `destination` uses when it names none: a Salesforce destination's
 * `externalIdField`; HubSpot has no default (undefined).
 */
export function defaultMatchField(destination: { type: DestinationType; externalIdField?: string | undefined }): string | undefined {
  return destination.type === 'salesforce' ? destination.externalIdField : undefined;
}

export function hubspotPropertyGroup(object: string): string {
  return HUBSPOT_PROPERTY_GROUPS[object] ?? 'default';
}
