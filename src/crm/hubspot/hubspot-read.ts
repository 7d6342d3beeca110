import { chunks } from '../chunks.js';
import { CrmSchemaError } from '../errors.js';
import type { HubSpotCaller } from './hubspot-caller.js';
import { hubspotJson } from './hubspot-json-request.js';
import { HUBSPOT_BATCH_SIZE } from './hubspot-limits.js';

/** What the typed `batchApi.read` accepts (207: some ids not found); any other status is thrown. */
const READ_ACCEPTED = [200, 207] as const;

interface ReadAnswer {
  results?: { id: string; properties: Record<string, string | null> }[];
}

/** HubSpot answered that the property we read by does not exist (yet): no object can have a value for it. */
function matchPropertyMissing(err: unknown, matchField: string): boolean {
  const missing = err instanceof CrmSchemaError ? err.details?.missing : undefined;
  return Array.isArray(missing) && missing.includes(matchField);
}

/**
 * Batch read by a unique property, 100 keys per call; keys HubSpot does not know are absent from the map. A match
 * property that does not exist yet (a fresh portal before the first real run created it, e.g. under `--dry-run`)
 * means no object can exist by that key: the map is empty. Every other refusal still throws its typed error.
 */
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
  const path = `/crm/v3/objects/${encodeURIComponent(object)}/batch/read`;
  for (const part of chunks(keys, HUBSPOT_BATCH_SIZE)) {
    const inputs = part.map((id) => ({ id }));
    let answer;
    try {
      answer = await caller.call(
        (c, attempt) =>
          hubspotJson<ReadAnswer>(
            c,
            'POST',
            path,
            { inputs, idProperty: matchField, properties, propertiesWithHistory: [] },
            READ_ACCEPTED,
            attempt,
          ),
        { operation: 'batch read', object },
        signal,
      );
    } catch (err) {
      if (matchPropertyMissing(err, matchField)) return found;
      throw err;
    }
    for (const result of answer.results ?? []) {
      const key = result.properties[matchField];
      if (typeof key === 'string') found.set(key, { id: result.id, properties: result.properties });
    }
  }
  return found;
}
