import { WRITABLE, type PropertyDef } from './default-properties.js';
import { HubSpotHttpError, validationError } from './hubspot-http-error.js';
import type { ObjectTable } from './hubspot-store.js';
import type { BatchAnswer } from './object-batch.js';

const REQUIRED = ['name', 'label', 'type', 'fieldType', 'groupName'] as const;
const TYPES = new Set(['string', 'number', 'date', 'datetime', 'enumeration', 'bool']);
const MAX_UNIQUE_PER_OBJECT = 10;

export function listProperties(table: ObjectTable): BatchAnswer {
  return { status: 200, body: { results: [...table.properties.values()] } };
}

export function getProperty(table: ObjectTable, name: string): BatchAnswer {
  const def = table.properties.get(name);
  if (def === undefined)
    throw new HubSpotHttpError(
      404,
      'OBJECT_NOT_FOUND',
      `Unable to find property ${name} for object type ${table.type}`,
    );
  return { status: 200, body: def };
}

export function createProperty(table: ObjectTable, body: unknown): BatchAnswer {
  const input = (body ?? {}) as Record<string, unknown>;
  const absent = REQUIRED.filter((k) => typeof input[k] !== 'string' || input[k] === '');
  if (absent.length > 0) throw validationError(`Invalid input JSON: missing required fields ${absent.join(', ')}`);
  const name = input.name as string;
  if (!/^[a-z][a-z0-9_]*$/.test(name))
    throw validationError(`Property name ${name} must be lowercase letters, digits and underscores`);
  if (!TYPES.has(input.type as string)) throw validationError(`Unknown property type ${String(input.type)}`);
  if (table.properties.has(name))
    throw new HubSpotHttpError(409, 'OBJECT_ALREADY_EXISTS', `Property named '${name}' already exists.`);
  const hasUniqueValue = input.hasUniqueValue === true;
  if (
    hasUniqueValue &&
    [...table.properties.values()].filter((p) => p.hasUniqueValue).length >= MAX_UNIQUE_PER_OBJECT
  ) {
    throw validationError(`Object type ${table.type} already has ${MAX_UNIQUE_PER_OBJECT} unique-value properties`);
  }
  const now = new Date().toISOString();
  const def: PropertyDef = {
    name,
    label: input.label as string,
    type: input.type as string,
    fieldType: input.fieldType as string,
    groupName: input.groupName as string,
    description: typeof input.description === 'string' ? input.description : '',
    hasUniqueValue,
    options: [],
    hubspotDefined: false,
    modificationMetadata: { ...WRITABLE },
    createdAt: now,
    updatedAt: now,
  };
  table.addProperty(def);
  return { status: 201, body: def };
}
