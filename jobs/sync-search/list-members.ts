/**
 * A search's CRM list (`list: {name}`, docs/runs.md, Mirror): members not in the list yet are added after every
 * complete run, and with `onLeave: removeFromList` acted-on leavers are removed. The list port works with CRM record
 * ids, the membership with match keys: keys are resolved by the object's unique match field. Which members are in
 * the list is kept beside the membership, so an unchanged run writes nothing and a failed write is retried next run.
 */
import type { SavedSearch } from '../../src/config/index.js';
import type { CrmSink, FieldMapping, ListPort } from '../../src/crm/index.js';
import type { MembershipStore } from '../../src/runs/membership-store.js';

export interface ListInput {
  store: MembershipStore;
  search: SavedSearch;
  crm: { sink: CrmSink; mapping: FieldMapping };
  signal?: AbortSignal;
}

interface OpenList {
  lists: ListPort;
  listId: string;
}

async function openList(input: ListInput): Promise<OpenList | undefined> {
  const { lists } = input.crm.sink;
  const name = input.search.list?.name;
  // The config check refuses `list:` on a destination without lists; a sink built in code may still lack them.
  if (name === undefined || lists === undefined) return undefined;
  const listId = await lists.ensureList(input.crm.mapping.target.object, name, options(input));
  await input.store.keepListId(listId);
  return { lists, listId };
}

function options(input: ListInput): { signal?: AbortSignal } {
  return input.signal ? { signal: input.signal } : {};
}

async function resolve(list: OpenList, input: ListInput, keys: readonly string[]): Promise<Map<string, string>> {
  const { object, matchField } = input.crm.mapping.target;
  return keys.length === 0 ? new Map() : list.lists.recordIds(object, matchField, keys, options(input));
}

/**
 * Adds every member not in the list yet, page by page (a page's keys resolved, added and marked before the next is
 * read: the worker never holds the whole membership); returns how many the CRM added. Keys the CRM does not hold are
 * tried again next run.
 */
export async function addMembersToList(input: ListInput): Promise<number> {
  const list = await openList(input);
  if (list === undefined) return 0;
  let added = 0;
  for await (const page of input.store.unlistedPages()) {
    const ids = await resolve(list, input, page);
    if (ids.size === 0) continue;
    const change = await list.lists.changeMembers(list.listId, [...ids.values()], [], options(input));
    const missing = new Set(change.missing);
    await input.store.markListed(
      [...ids].filter(([, id]) => !missing.has(id)).map(([key]) => key),
      true,
    );
    added += change.added.length;
  }
  return added;
}

/**
 * Removes these leavers from the list, page by page (those the CRM no longer holds need nothing), calling `removed`
 * with each page once it is out of the list; returns how many the CRM removed.
 */
export async function removeFromList(
  input: ListInput,
  pages: AsyncIterable<string[]>,
  removed: (keys: string[]) => Promise<void>,
): Promise<number> {
  const list = await openList(input);
  let count = 0;
  for await (const keys of pages) {
    if (list !== undefined) {
      const ids = await resolve(list, input, keys);
      if (ids.size > 0) {
        const change = await list.lists.changeMembers(list.listId, [], [...ids.values()], options(input));
        count += change.removed.length;
      }
      await input.store.markListed(keys, false);
    }
    await removed(keys);
  }
  return count;
}
