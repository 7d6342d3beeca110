import type { HubSpotCaller } from './hubspot-caller.js';

export const HUBSPOT_BATCH_SIZE = 100;

/** Batch read by a unique property, 100 keys per call; keys HubSpot does not know are absent from the map. */
export async function readByKey(
  caller: HubSpotCaller,
  object: string,
  matchField: string,
  keys: string[],
  fields: string[],
  signal?: AbortSignal,
): Promise<Map<string, { id: string; properties: Record<string, string | null> }>> {
  const found = new Map<string, { id: string; properties: Record<string, string | null> }>();
  const properties = [...new Set([...fields, matchField])];
  for (let i = 0; i < keys.length; i += HUBSPOT_BATCH_SIZE) {
    const inputs = keys.slice(i, i + HUBSPOT_BATCH_SIZE).map((id) => ({ id }));
    const answer = await caller.call((c) => c.crm.objects.batchApi.readWithHttpInfo(object, { inputs, idProperty: matchField, properties, propertiesWithHistory: [] }), { operation: 'batch read', object }, signal);
    for (const result of answer.results) {
      const key = result.properties[matchField];
      if (typeof key === 'string') found.set(key, { id: result.id, properties: result.properties });
    }
  }
  return found;
}
