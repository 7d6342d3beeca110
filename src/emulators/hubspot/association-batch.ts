import { OBJECT_TYPE_IDS } from './default-properties.js';
import { recordError, validationError, type RecordError } from './hubspot-http-error.js';
import type { HubSpotStore } from './hubspot-store.js';
import { inputsOf, type BatchAnswer } from './object-batch.js';

/** HUBSPOT_DEFINED type ids per direction (contact→company primary 1 / unlabeled 279, and the reverse 2 / 280). */
const DEFINED_TYPES: Record<string, { primary: number; unlabeled: number }> = {
  'contacts>companies': { primary: 1, unlabeled: 279 },
  'companies>contacts': { primary: 2, unlabeled: 280 },
};

function pair(input: Record<string, unknown>): { from: string; to: string } {
  const from = (input.from as { id?: unknown } | undefined)?.id;
  const to = (input.to as { id?: unknown } | undefined)?.id;
  if (typeof from !== 'string' || typeof to !== 'string')
    throw validationError('Invalid input JSON: inputs need from.id and to.id');
  return { from, to };
}

function link(store: HubSpotStore, fromType: string, from: string, toType: string, to: string, typeId: number): void {
  const exists = store.associations.some(
    (a) => a.fromType === fromType && a.fromId === from && a.toType === toType && a.toId === to && a.typeId === typeId,
  );
  if (!exists) store.associations.push({ fromType, fromId: from, toType, toId: to, typeId });
}

function directionOf(fromType: string, toType: string): { primary: number; unlabeled: number } {
  const types = DEFINED_TYPES[`${fromType}>${toType}`];
  if (types !== undefined) return types;
  throw validationError(`No association definitions exist between ${fromType} and ${toType}`);
}

export function createAssociations(store: HubSpotStore, fromType: string, toType: string, body: unknown): BatchAnswer {
  const started = new Date().toISOString();
  const types = directionOf(fromType, toType);
  const fromTable = store.table(fromType);
  const toTable = store.table(toType);
  const results: unknown[] = [];
  const errors: RecordError[] = [];
  for (const input of inputsOf(body)) {
    const { from, to } = pair(input);
    const specs = Array.isArray(input.types)
      ? (input.types as { associationCategory?: unknown; associationTypeId?: unknown }[])
      : [];
    if (specs.length === 0)
      throw validationError('Invalid input JSON: every input needs at least one association type');
    for (const spec of specs) {
      if (
        spec.associationCategory !== 'HUBSPOT_DEFINED' ||
        (spec.associationTypeId !== types.primary && spec.associationTypeId !== types.unlabeled)
      ) {
        throw validationError(
          `associationTypeId ${String(spec.associationTypeId)} (${String(spec.associationCategory)}) is not ` +
            `valid for ${fromType} to ${toType}`,
        );
      }
    }
    const missing = [from, to].filter((id, i) => !(i === 0 ? fromTable : toTable).objects.has(id));
    if (missing.length > 0) {
      errors.push(
        recordError(
          'OBJECT_NOT_FOUND',
          `No ${missing.length === 2 ? 'objects' : 'object'} with ids ${missing.join(', ')}`,
          missing,
        ),
      );
      continue;
    }
    for (const spec of specs) link(store, fromType, from, toType, to, spec.associationTypeId as number);
    results.push({
      fromObjectTypeId: OBJECT_TYPE_IDS[fromType],
      fromObjectId: from,
      toObjectTypeId: OBJECT_TYPE_IDS[toType],
      toObjectId: to,
      labels: [],
    });
  }
  const body201 = { status: 'COMPLETE', results, startedAt: started, completedAt: new Date().toISOString() };
  return errors.length === 0
    ? { status: 201, body: body201 }
    : { status: 207, body: { ...body201, numErrors: errors.length, errors } };
}

export function associateDefault(store: HubSpotStore, fromType: string, toType: string, body: unknown): BatchAnswer {
  const started = new Date().toISOString();
  const types = directionOf(fromType, toType);
  const pairs = inputsOf(body).map(pair);
  const missing = pairs.flatMap(({ from, to }) => [
    ...(store.table(fromType).objects.has(from) ? [] : [from]),
    ...(store.table(toType).objects.has(to) ? [] : [to]),
  ]);
  if (missing.length > 0)
    throw validationError(`Objects not found: ${missing.join(', ')}`, { subCategory: 'OBJECT_NOT_FOUND' });
  const results = pairs.map(({ from, to }) => {
    link(store, fromType, from, toType, to, types.unlabeled);
    return {
      from: { id: from },
      to: { id: to },
      associationSpec: { associationCategory: 'HUBSPOT_DEFINED', associationTypeId: types.unlabeled },
    };
  });
  return {
    status: 200,
    body: { status: 'COMPLETE', results, startedAt: started, completedAt: new Date().toISOString() },
  };
}
