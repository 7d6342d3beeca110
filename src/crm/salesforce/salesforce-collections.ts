import { inLanes } from '../../shared/in-lanes.js';
import { chunks } from '../chunks.js';
import type { CrmRecord, ObjectTarget, UpsertOutcome } from '../crm-sink.js';
import type { SalesforceCaller } from './salesforce-caller.js';
import { withLink, type Link } from './salesforce-links.js';
import { outcomeOf, type SaveResultLike } from './save-outcome.js';

/** Salesforce's cap on records per sObject Collections request. */
export const COLLECTION_SIZE = 200;

/**
 * External-id upserts by sObject Collections (`PATCH composite/sobjects/{object}/{matchField}`, `allOrNone: false`),
 * up to `lanes` calls in flight; one outcome per record from its save result.
 */
export async function upsertCollections(
  caller: SalesforceCaller,
  target: ObjectTarget,
  records: CrmRecord[],
  link: Link | undefined,
  lanes: number,
  signal?: AbortSignal,
): Promise<UpsertOutcome[]> {
  // On the first failure the other lanes finish their call in flight and stop: nothing keeps writing after we throw.
  const results = await inLanes(chunks(records, COLLECTION_SIZE), lanes, async (chunk) => {
    const bodies = chunk.map((r) => withLink({ ...r.properties, [target.matchField]: r.key }, r, link));
    const saved = (await caller.call(
      (conn) => conn.upsert(target.object, bodies as never[], target.matchField, { allOrNone: false }),
      signal,
    )) as unknown as SaveResultLike[];
    return chunk.map((record, j) => outcomeOf(record, saved[j]));
  });
  return results.flat();
}
