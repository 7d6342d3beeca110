import { OBJECT_TYPE_IDS } from './default-properties.js';
import { HubSpotHttpError, validationError } from './hubspot-http-error.js';
import type { HubSpotStore } from './hubspot-store.js';
import { ListStore } from './list-store.js';
import type { BatchAnswer } from './object-batch.js';

/** Most record ids (to add and to remove together) one membership change takes; HubSpot documents none, so strict. */
export const MAX_MEMBERSHIP_IDS = 100;
/** Most members one page answers (HubSpot's documented maximum). */
export const MAX_MEMBERSHIP_PAGE = 250;

/** The object type (`contacts`) of an objectTypeId (`0-1`), or a 400 as HubSpot answers an unknown one. */
export function objectTypeOf(objectTypeId: string): string {
  const type = Object.entries(OBJECT_TYPE_IDS).find(([, id]) => id === objectTypeId)?.[0];
  if (type === undefined) throw validationError(`Unknown objectTypeId: ${objectTypeId}`);
  return type;
}

function stringArray(body: Record<string, unknown>, field: string): string[] {
  const value = body[field] ?? [];
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string'))
    throw validationError(`Invalid input JSON: ${field} must be an array of strings`);
  return value as string[];
}

export function createList(store: HubSpotStore, body: unknown): BatchAnswer {
  const input = (body ?? {}) as Record<string, unknown>;
  const { name, objectTypeId, processingType } = input;
  if (typeof name !== 'string' || name.trim() === '') throw validationError('Invalid input JSON: name is required');
  if (typeof objectTypeId !== 'string') throw validationError('Invalid input JSON: objectTypeId is required');
  if (typeof processingType !== 'string') throw validationError('Invalid input JSON: processingType is required');
  objectTypeOf(objectTypeId);
  return { status: 200, body: { list: ListStore.view(store.lists.create(name, objectTypeId, processingType)) } };
}

export function getListByName(store: HubSpotStore, objectTypeId: string, name: string): BatchAnswer {
  objectTypeOf(objectTypeId);
  const list = store.lists.byNameOf(name, objectTypeId);
  if (list === undefined)
    throw new HubSpotHttpError(
      404,
      'OBJECT_NOT_FOUND',
      `List with name ${name} and objectTypeId ${objectTypeId} does not exist`,
      { subCategory: 'ILS_LIST_NOT_FOUND' },
    );
  return { status: 200, body: { list: ListStore.view(list) } };
}

/** Unknown ids are answered as missing, ids already (or not) members are ignored; MANUAL lists only. */
export function addAndRemove(store: HubSpotStore, listId: string, body: unknown): BatchAnswer {
  const list = store.lists.get(listId);
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw validationError('Invalid input JSON: expected {"recordIdsToAdd": [], "recordIdsToRemove": []}');
  const toAdd = stringArray(body as Record<string, unknown>, 'recordIdsToAdd');
  const toRemove = stringArray(body as Record<string, unknown>, 'recordIdsToRemove');
  if (list.processingType !== 'MANUAL')
    throw validationError(
      `List ${listId} has processingType ${list.processingType}; only MANUAL lists take membership changes`,
      { subCategory: 'ILS_INVALID_PROCESSING_TYPE' },
    );
  if (toAdd.length + toRemove.length > MAX_MEMBERSHIP_IDS)
    throw validationError(`Too many record ids: ${toAdd.length + toRemove.length}, the limit is ${MAX_MEMBERSHIP_IDS}`);
  const table = store.table(objectTypeOf(list.objectTypeId));
  const now = new Date().toISOString();
  const added: string[] = [];
  const removed: string[] = [];
  const missing: string[] = [];
  for (const id of toAdd) {
    if (!table.objects.has(id)) missing.push(id);
    else if (!list.members.has(id)) {
      list.members.set(id, now);
      added.push(id);
    }
  }
  for (const id of toRemove) {
    if (!table.objects.has(id)) missing.push(id);
    else if (list.members.delete(id)) removed.push(id);
  }
  if (added.length + removed.length > 0) {
    list.updatedAt = now;
    list.listVersion += 1;
  }
  return {
    status: 200,
    body: { [store.lists.addedSpelling]: added, recordIdsRemoved: removed, recordIdsMissing: [...new Set(missing)] },
  };
}

/** Members ordered by record id; `after` is the opaque cursor of the previous page's `paging.next.after`. */
export function membershipPage(store: HubSpotStore, listId: string, query: URLSearchParams): BatchAnswer {
  const list = store.lists.get(listId);
  const limitText = query.get('limit');
  const limit = limitText === null ? 100 : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_MEMBERSHIP_PAGE)
    throw validationError(`limit must be between 1 and ${MAX_MEMBERSHIP_PAGE}`);
  const afterText = query.get('after');
  const after =
    afterText === null || afterText === '' ? undefined : Buffer.from(afterText, 'base64url').toString('utf8');
  if (after !== undefined && !/^\d+$/.test(after)) throw validationError('Invalid paging cursor: after');
  const ids = [...list.members.keys()]
    .sort((a, b) => Number(a) - Number(b))
    .filter((id) => after === undefined || Number(id) > Number(after));
  const page = ids.slice(0, limit);
  const last = page.at(-1);
  const next =
    ids.length > limit && last !== undefined
      ? { paging: { next: { after: Buffer.from(last).toString('base64url') } } }
      : {};
  return {
    status: 200,
    body: {
      results: page.map((recordId) => ({ recordId, membershipTimestamp: list.members.get(recordId) })),
      total: list.members.size,
      ...next,
    },
  };
}
