/**
 * Archiving records by match key (`onLeave: archive`): the keys are read by the object's unique match property to
 * HubSpot ids, then archived through `batch/archive` (restorable for 90 days in HubSpot). Keys HubSpot does not hold
 * (never written, or archived already) are `missing`. HubSpot answers a batch archive as a whole (204): a refusal
 * throws its typed error, and nothing of that batch counts as archived.
 */
import { chunks } from '../chunks.js';
import type { ArchiveResult, ObjectTarget } from '../crm-sink.js';
import type { HubSpotCaller } from './hubspot-caller.js';
import { hubspotJson } from './hubspot-json-request.js';
import { HUBSPOT_BATCH_SIZE } from './hubspot-limits.js';
import { readByKey } from './hubspot-read.js';

export async function archiveByKey(
  caller: HubSpotCaller,
  target: ObjectTarget,
  keys: readonly string[],
  signal?: AbortSignal,
): Promise<ArchiveResult> {
  const { object } = target;
  const { found, result } = await recordsByKey(caller, target, keys, signal);
  const path = `/crm/v3/objects/${encodeURIComponent(object)}/batch/archive`;
  for (const part of chunks([...found], HUBSPOT_BATCH_SIZE)) {
    const inputs = part.map(([, record]) => ({ id: record.id }));
    await caller.call(
      (c, attempt) => hubspotJson<undefined>(c, 'POST', path, { inputs }, [204], attempt),
      { operation: 'batch archive', object },
      signal,
    );
    result.archived.push(...part.map(([key]) => key));
  }
  return result;
}

/** The HubSpot records of these keys, and a result with the keys HubSpot does not hold as `missing`. */
export async function recordsByKey(
  caller: HubSpotCaller,
  target: ObjectTarget,
  keys: readonly string[],
  signal?: AbortSignal,
): Promise<{ found: Map<string, { id: string }>; result: ArchiveResult }> {
  const found = await readByKey(caller, target.object, target.matchField, [...new Set(keys)], [], signal);
  return { found, result: { archived: [], missing: keys.filter((k) => !found.has(k)), refused: [] } };
}
