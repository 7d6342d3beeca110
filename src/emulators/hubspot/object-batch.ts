import type { HubSpotFaults } from './emulator-faults.js';
import { HubSpotHttpError, recordError, validationError, type RecordError } from './hubspot-http-error.js';
import type { ObjectTable, StoredObject } from './hubspot-store.js';

export const MAX_BATCH_INPUTS = 100;

export interface BatchAnswer {
  status: number;
  body?: unknown;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function inputsOf(body: unknown): Record<string, unknown>[] {
  const inputs = (body as { inputs?: unknown } | null)?.inputs;
  if (!Array.isArray(inputs) || inputs.some((i) => i === null || typeof i !== 'object' || Array.isArray(i))) {
    throw validationError('Invalid input JSON: expected {"inputs": [ ... ]}');
  }
  if (inputs.length > MAX_BATCH_INPUTS)
    throw validationError(`Batch input size limit exceeded: ${inputs.length} inputs, the limit is ${MAX_BATCH_INPUTS}`);
  return inputs as Record<string, unknown>[];
}

function idOf(input: Record<string, unknown>): string {
  const id = input.id;
  if (typeof id !== 'string' || id === '')
    throw validationError('Invalid input JSON: every input needs a non-empty string "id"');
  return id;
}

function rejectDuplicates(ids: string[]): void {
  const seen = new Set<string>();
  const dupes = new Set<string>();
  for (const id of ids) (seen.has(id) ? dupes : seen).add(id);
  if (dupes.size > 0)
    throw validationError(`Duplicate IDs found in batch input: [${[...dupes].join(', ')}]. IDs must be unique`);
}

function uniqueIdProperty(table: ObjectTable, idProperty: unknown): string {
  if (idProperty === undefined || idProperty === 'hs_object_id') return 'hs_object_id';
  const def = typeof idProperty === 'string' ? table.properties.get(idProperty) : undefined;
  if (def === undefined)
    throw validationError(`Property "${String(idProperty)}" does not exist`, { subCategory: 'PROPERTY_DOESNT_EXIST' });
  if (!def.hasUniqueValue) throw validationError(`Unable to perform update/upsert by non-unique property: ${def.name}`);
  return def.name;
}

/** HubSpot stores strings: numbers and booleans are stringified, null clears, anything else fails the batch. */
function propertiesOf(table: ObjectTable, input: Record<string, unknown>): Record<string, string> {
  const raw = input.properties ?? {};
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    throw validationError('Invalid input JSON: "properties" must be an object');
  const out: Record<string, string> = {};
  const missing: string[] = [];
  for (const [name, value] of Object.entries(raw)) {
    if (!table.properties.has(name)) missing.push(name);
    else if (value === null) out[name] = '';
    else if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
      out[name] = String(value);
    else throw validationError(`Invalid input JSON: property ${name} must be a string`);
  }
  if (missing.length > 0) {
    // As HubSpot answers: the codes only inside the message's JSON list, no subCategory.
    const detail = missing.map((name) => ({
      isValid: false,
      message: `Property "${name}" does not exist`,
      error: 'PROPERTY_DOESNT_EXIST',
      name,
      localizedErrorMessage: `Property "${name}" does not exist`,
    }));
    throw validationError(`Property values were not valid: ${JSON.stringify(detail)}`);
  }
  for (const name of Object.keys(out))
    if (table.properties.get(name)?.modificationMetadata.readOnlyValue === true) delete out[name];
  return out;
}

const DAY_MS = 86_400_000;

/**
 * A `date` property holds a day: epoch milliseconds or ISO 8601, at midnight UTC only. HubSpot's answer to any other
 * time: "<ms> is at 6:12:58.0 UTC, not midnight!" (INVALID_DATE); see
 * https://developers.hubspot.com/docs/faq/how-should-timestamps-be-formatted-for-hubspots-apis
 */
function dateProblem(value: string): string | undefined {
  const ms = /^-?\d+$/.test(value) ? Number(value) : Date.parse(value);
  if (!Number.isFinite(ms)) return `${value} is not a valid date`;
  const offset = ((ms % DAY_MS) + DAY_MS) % DAY_MS;
  if (offset === 0) return undefined;
  const at = new Date(ms);
  const time = `${at.getUTCHours()}:${at.getUTCMinutes()}:${at.getUTCSeconds()}.${at.getUTCMilliseconds()}`;
  return `${ms} is at ${time} UTC, not midnight!`;
}

/** Per-record value checks: invalid email, non-numeric number, a date not at midnight UTC, the reject switch. */
function invalidValue(
  table: ObjectTable,
  id: string,
  properties: Record<string, string>,
  faults: HubSpotFaults,
): RecordError | undefined {
  const problems: { isValid: false; message: string; error: string; name: string }[] = [];
  for (const [name, value] of Object.entries(properties)) {
    const def = table.properties.get(name);
    if (value === '') continue;
    if (name === 'email' && !EMAIL.test(value))
      problems.push({ isValid: false, message: `Email address ${value} is invalid`, error: 'INVALID_EMAIL', name });
    else if (def?.type === 'number' && !Number.isFinite(Number(value)))
      problems.push({ isValid: false, message: `${value} was not a valid number.`, error: 'INVALID_INTEGER', name });
    else if (def?.type === 'date') {
      const message = dateProblem(value);
      if (message !== undefined) problems.push({ isValid: false, message, error: 'INVALID_DATE', name });
    }
  }
  const flagged = [id, ...Object.values(properties)].find((v) => faults.reject.values.has(v));
  if (flagged !== undefined)
    problems.push({
      isValid: false,
      message: `Value ${flagged} was rejected`,
      error: 'INVALID_OPTION',
      name: 'record',
    });
  if (problems.length === 0) return undefined;
  const error = recordError(
    'VALIDATION_ERROR',
    `Property values were not valid: ${JSON.stringify(problems)}`,
    [id],
    problems[0]?.error,
  );
  if (flagged !== undefined && faults.reject.mode === 'batch') throw validationError(error.message);
  return error;
}

export function view(object: StoredObject, properties: Record<string, string | null>): Record<string, unknown> {
  return {
    id: object.id,
    properties: {
      ...properties,
      hs_object_id: object.id,
      createdate: object.createdAt,
      lastmodifieddate: object.updatedAt,
    },
    createdAt: object.createdAt,
    updatedAt: object.updatedAt,
    archived: false,
  };
}

function batchBody(results: unknown[], errors: RecordError[], started: string, okStatus: number): BatchAnswer {
  const body = { status: 'COMPLETE', results, startedAt: started, completedAt: new Date().toISOString() };
  return errors.length === 0
    ? { status: okStatus, body }
    : { status: 207, body: { ...body, numErrors: errors.length, errors } };
}

export function upsert(table: ObjectTable, body: unknown, faults: HubSpotFaults, newId: () => string): BatchAnswer {
  const started = new Date().toISOString();
  const inputs = inputsOf(body);
  const parsed = inputs.map((input) => ({
    id: idOf(input),
    idProperty: uniqueIdProperty(table, input.idProperty),
    properties: propertiesOf(table, input),
  }));
  rejectDuplicates(parsed.map((p) => p.id));
  const checks = parsed.map((p) => invalidValue(table, p.id, p.properties, faults));
  const results: unknown[] = [];
  const errors: RecordError[] = [];
  parsed.forEach((p, i) => {
    const invalid = checks[i];
    if (invalid !== undefined) return void errors.push(invalid);
    const existing = table.findBy(p.idProperty, p.id);
    if (existing === undefined && p.idProperty === 'hs_object_id')
      return void errors.push(recordError('OBJECT_NOT_FOUND', `Object ${p.id} not found`, [p.id]));
    const properties = p.idProperty === 'hs_object_id' ? p.properties : { ...p.properties, [p.idProperty]: p.id };
    const conflict = table.conflict(properties, existing?.id);
    if (conflict !== undefined) {
      return void errors.push(
        recordError(
          'CONFLICT',
          `A record with this ${conflict.property} already exists. Existing ID: ${conflict.existingId}`,
          [p.id],
        ),
      );
    }
    const stored = table.put(existing?.id ?? newId(), properties, new Date().toISOString());
    results.push({ ...view(stored, properties), new: existing === undefined });
  });
  return batchBody(results, errors, started, 200);
}

export function create(table: ObjectTable, body: unknown, faults: HubSpotFaults, newId: () => string): BatchAnswer {
  const started = new Date().toISOString();
  const parsed = inputsOf(body).map((input) => propertiesOf(table, input));
  const results: unknown[] = [];
  const errors: RecordError[] = [];
  // A unique-value clash fails the whole batch with 409 (HubSpot: "Contact already exists. Existing ID: X").
  for (const properties of parsed) {
    const conflict = table.conflict(properties, undefined);
    if (conflict !== undefined)
      throw new HubSpotHttpError(
        409,
        'CONFLICT',
        `${table.type === 'contacts' ? 'Contact' : 'Object'} already exists. Existing ID: ${conflict.existingId}`,
      );
  }
  for (const properties of parsed) {
    const invalid = invalidValue(table, '', properties, faults);
    if (invalid !== undefined) errors.push(invalid);
    else results.push(view(table.put(newId(), properties, new Date().toISOString()), properties));
  }
  return batchBody(results, errors, started, 201);
}

export function update(table: ObjectTable, body: unknown, faults: HubSpotFaults): BatchAnswer {
  const started = new Date().toISOString();
  const inputs = inputsOf(body);
  const parsed = inputs.map((input) => ({
    id: idOf(input),
    idProperty: uniqueIdProperty(table, input.idProperty),
    properties: propertiesOf(table, input),
  }));
  rejectDuplicates(parsed.map((p) => p.id));
  const results: unknown[] = [];
  const errors: RecordError[] = [];
  for (const p of parsed) {
    const existing = table.findBy(p.idProperty, p.id);
    const invalid = invalidValue(table, p.id, p.properties, faults);
    if (existing === undefined) errors.push(recordError('OBJECT_NOT_FOUND', `Object ${p.id} not found`, [p.id]));
    else if (invalid !== undefined) errors.push(invalid);
    else results.push(view(table.put(existing.id, p.properties, new Date().toISOString()), p.properties));
  }
  return batchBody(results, errors, started, 200);
}

export function read(table: ObjectTable, body: unknown): BatchAnswer {
  const started = new Date().toISOString();
  const request = body as { idProperty?: unknown; properties?: unknown };
  const idProperty = uniqueIdProperty(table, request.idProperty);
  const wanted = Array.isArray(request.properties)
    ? request.properties.filter((p): p is string => typeof p === 'string')
    : [];
  const ids = inputsOf(body).map(idOf);
  const results: unknown[] = [];
  const missing: string[] = [];
  for (const id of new Set(ids)) {
    const object = table.findBy(idProperty, id);
    if (object === undefined) missing.push(id);
    else results.push(view(object, Object.fromEntries(wanted.map((name) => [name, object.properties[name] ?? null]))));
  }
  const errors =
    missing.length === 0
      ? []
      : [
          recordError(
            'OBJECT_NOT_FOUND',
            `Could not get some ${table.type.toUpperCase()} objects, they may be deleted or not exist. Check ` +
              `that ids are valid.`,
            missing,
          ),
        ];
  return batchBody(results, errors, started, 200);
}

export function archive(table: ObjectTable, body: unknown): BatchAnswer {
  for (const id of inputsOf(body).map(idOf)) table.remove(id);
  return { status: 204 };
}
