/**
 * Opt-outs kept in HubSpot (`suppress.crm`): the match keys of the records where a bool property is true, read
 * through the CRM search endpoint (`POST /crm/v3/objects/{object}/search`, filter `<property> EQ true`), page by
 * page. Pages follow `hs_object_id` upwards (a filter `hs_object_id GT <last>`, sorted by it in the object form
 * HubSpot's search guide documents) rather than the `after` cursor, which HubSpot stops after a fixed number of
 * results of one query. The search endpoints have a per-second limit of their own, below the portal's: calls are
 * spaced out beside the portal's governor every call goes through.
 */
import { sleep } from '../../shared/abortable-sleep.js';
import type { HubSpotCaller } from './hubspot-caller.js';
import { hubspotJson } from './hubspot-json-request.js';

/** Records per search answer: HubSpot's largest page. */
export const HUBSPOT_SEARCH_PAGE = 200;
/** Time between two search calls of one read: HubSpot's search endpoints have a per-second limit per token. */
export const HUBSPOT_SEARCH_SPACING_MS = 250;

interface SearchAnswer {
  total?: number;
  results?: { id: string; properties: Record<string, string | null> }[];
}

/**
 * Pages of match keys (never empty) of `object` records whose `property` is true; records without a match key
 * are passed over (never written by us, so nothing of ours to keep from them).
 */
export async function* optedOutKeys(
  caller: HubSpotCaller,
  object: string,
  matchField: string,
  properties: readonly string[],
  signal?: AbortSignal,
): AsyncGenerator<string[]> {
  const path = `/crm/v3/objects/${encodeURIComponent(object)}/search`;
  let last = 0;
  for (const property of properties) {
    let after = '0';
    for (;;) {
      const wait = last + HUBSPOT_SEARCH_SPACING_MS - Date.now();
      if (wait > 0) await sleep(wait, signal);
      last = Date.now();
      const body = {
        filterGroups: [
          {
            filters: [
              { propertyName: property, operator: 'EQ', value: 'true' },
              { propertyName: 'hs_object_id', operator: 'GT', value: after },
            ],
          },
        ],
        sorts: [{ propertyName: 'hs_object_id', direction: 'ASCENDING' }],
        properties: [matchField],
        limit: HUBSPOT_SEARCH_PAGE,
        after: '0',
      };
      const answer = await caller.call(
        (c, attempt) => hubspotJson<SearchAnswer>(c, 'POST', path, body, [200], attempt),
        { operation: 'search', object },
        signal,
      );
      const results = answer.results ?? [];
      const keys: string[] = [];
      for (const r of results) {
        const key = r.properties[matchField];
        if (typeof key === 'string' && key !== '') keys.push(key);
      }
      if (keys.length > 0) yield keys;
      if (results.length < HUBSPOT_SEARCH_PAGE) break;
      after = results.at(-1)!.id;
    }
  }
}
