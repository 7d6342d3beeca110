import { chunks } from '../chunks.js';
import type { ListChange, ListPort } from '../crm-sink.js';
import { CrmListError } from '../errors.js';
import type { HubSpotCaller } from './hubspot-caller.js';
import { refusalError } from './hubspot-errors.js';
import { hubspotJson } from './hubspot-json-request.js';
import { readByKey } from './hubspot-read.js';

/** HubSpot's objectTypeId of the objects a list can hold. */
const OBJECT_TYPE_IDS: Record<string, string> = { contacts: '0-1', companies: '0-2' };
/** Record ids (to add and to remove together) per membership call: HubSpot documents no maximum, so a batch. */
export const LIST_CHANGE_BATCH = 100;
/** Members per page read (HubSpot's maximum). */
export const LIST_PAGE_SIZE = 250;

interface ListAnswer {
  list?: { listId?: unknown; processingType?: unknown };
}

/** The added ids are spelled `recordsIdsAdded` by some API versions and `recordIdsAdded` by others: both are read. */
interface ChangeAnswer {
  recordsIdsAdded?: string[];
  recordIdsAdded?: string[];
  recordIdsRemoved?: string[];
  recordIdsMissing?: string[];
}

interface PageAnswer {
  results?: { recordId?: unknown }[];
  paging?: { next?: { after?: string } };
}

function objectTypeId(object: string): string {
  const id = OBJECT_TYPE_IDS[object];
  if (id === undefined)
    throw new CrmListError(`HubSpot lists hold companies or contacts, not ${object}`, {
      crm: 'hubspot',
      list: object,
      reason: 'object',
    });
  return id;
}

function notFound(listId: string): CrmListError {
  return new CrmListError(`HubSpot list ${listId} does not exist (deleted in HubSpot?)`, {
    crm: 'hubspot',
    list: listId,
    reason: 'not_found',
  });
}

/**
 * A search's HubSpot list (Lists v3, MANUAL) and its members, by HubSpot record id. Every call goes through the
 * sink's caller (the portal's governor, call policy and request deadline). Calls are plain JSON through the real
 * client's `Request` (hubspot-json-request.ts) rather than the typed `crm.lists` APIs: their serializer keeps only
 * `recordsIdsAdded` and would silently drop the other spelling, and they cannot take the attempt's deadline.
 */
export function createHubSpotLists(caller: HubSpotCaller): ListPort {
  async function found(object: string, name: string, signal?: AbortSignal): Promise<ListAnswer['list'] | undefined> {
    const path = `/crm/v3/lists/object-type-id/${objectTypeId(object)}/name/${encodeURIComponent(name)}`;
    const answer = await caller.attempt(
      (c, attempt) => hubspotJson<ListAnswer>(c, 'GET', path, undefined, [200], attempt),
      signal,
    );
    if ('data' in answer) return answer.data.list;
    if (answer.refusal.code === 404) return undefined;
    throw refusalError(answer.refusal, { operation: 'list lookup', object });
  }

  function usable(list: ListAnswer['list'], name: string): string {
    if (typeof list?.listId !== 'string' && typeof list?.listId !== 'number')
      throw new Error('the list answer lacks listId');
    if (list.processingType !== 'MANUAL') {
      throw new CrmListError(
        `HubSpot list "${name}" is ${String(list.processingType)}, not MANUAL: its members cannot be set by ` +
          `API; rename it or pick another name`,
        { crm: 'hubspot', list: name, reason: 'not_manual' },
      );
    }
    return String(list.listId);
  }

  return {
    async ensureList(object, name, options) {
      const signal = options?.signal;
      const existing = await found(object, name, signal);
      if (existing !== undefined) return usable(existing, name);
      const body = { name, objectTypeId: objectTypeId(object), processingType: 'MANUAL' };
      const created = await caller.attempt(
        (c, attempt) => hubspotJson<ListAnswer>(c, 'POST', '/crm/v3/lists', body, [200], attempt),
        signal,
      );
      if ('data' in created) return usable(created.data.list, name);
      if (created.refusal.code === 409) {
        // Names are unique among all lists: another run created it between our lookup and create, or a list of
        // another object holds the name.
        const raced = await found(object, name, signal);
        if (raced !== undefined) return usable(raced, name);
        throw new CrmListError(
          `HubSpot already has a list named "${name}" for another object than ${object}; list names are unique, ` +
            `pick another`,
          { crm: 'hubspot', list: name, reason: 'name_taken' },
        );
      }
      throw refusalError(created.refusal, { operation: 'list create', object });
    },

    async changeMembers(listId, add, remove, options) {
      const change: ListChange = { added: [], removed: [], missing: [] };
      const tagged = [...add.map((id) => ({ id, add: true })), ...remove.map((id) => ({ id, add: false }))];
      const path = `/crm/v3/lists/${encodeURIComponent(listId)}/memberships/add-and-remove`;
      for (const part of chunks(tagged, LIST_CHANGE_BATCH)) {
        const body = {
          recordIdsToAdd: part.filter((p) => p.add).map((p) => p.id),
          recordIdsToRemove: part.filter((p) => !p.add).map((p) => p.id),
        };
        const answer = await caller.attempt(
          (c, attempt) => hubspotJson<ChangeAnswer>(c, 'PUT', path, body, [200], attempt),
          options?.signal,
        );
        if ('refusal' in answer) {
          if (answer.refusal.code === 404) throw notFound(listId);
          throw refusalError(answer.refusal, { operation: 'list membership change', object: `list ${listId}` });
        }
        change.added.push(...(answer.data.recordsIdsAdded ?? answer.data.recordIdsAdded ?? []));
        change.removed.push(...(answer.data.recordIdsRemoved ?? []));
        change.missing.push(...(answer.data.recordIdsMissing ?? []));
      }
      return change;
    },

    async members(listId, options) {
      const ids: string[] = [];
      let after: string | undefined;
      do {
        const query = new URLSearchParams({ limit: String(LIST_PAGE_SIZE), ...(after === undefined ? {} : { after }) });
        const path = `/crm/v3/lists/${encodeURIComponent(listId)}/memberships?${query.toString()}`;
        const answer = await caller.attempt(
          (c, attempt) => hubspotJson<PageAnswer>(c, 'GET', path, undefined, [200], attempt),
          options?.signal,
        );
        if ('refusal' in answer) {
          if (answer.refusal.code === 404) throw notFound(listId);
          throw refusalError(answer.refusal, { operation: 'list members read', object: `list ${listId}` });
        }
        for (const r of answer.data.results ?? [])
          if (typeof r.recordId === 'string' || typeof r.recordId === 'number') ids.push(String(r.recordId));
        after = answer.data.paging?.next?.after;
      } while (after !== undefined && after !== '');
      return ids;
    },

    async recordIds(object, matchField, keys, options) {
      const found = await readByKey(caller, object, matchField, [...keys], [], options?.signal);
      return new Map([...found].map(([key, record]) => [key, record.id]));
    },
  };
}
