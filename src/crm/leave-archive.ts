/**
 * `onLeave: archive`: a search's confirmed leavers are archived in the CRM (HubSpot: restorable 90 days; Salesforce:
 * deleted, 15 days in the Recycle Bin) through the sink's `archive` by match key. Records the CRM no longer holds
 * count as done. The change fingerprints of both are forgotten: a record that re-enters is written in full by its next
 * run, which creates it anew, instead of being skipped as unchanged.
 */
import { forgetOwnChanges, type SearchChangeState } from './change-detector.js';
import type { CrmSink, ObjectTarget } from './crm-sink.js';
import { CrmMappingConfigError } from './errors.js';

export interface LeaveArchiveInput {
  sink: CrmSink;
  /** The search's target: its object and match field. */
  target: ObjectTarget;
  keys: readonly string[];
  /** Where the search's change state is. */
  hashes: SearchChangeState;
  signal?: AbortSignal;
}

/**
 * Archives every leaver; returns the keys done (archived, or gone already), how many the CRM refused (those stay
 * pending) and the first refusal's reason (redacted by the sink).
 */
export async function archiveLeavers(
  input: LeaveArchiveInput,
): Promise<{ acted: string[]; refused: number; reason?: string }> {
  const { sink, keys, hashes } = input;
  // The config check refuses `onLeave: archive` on a destination whose port does not archive; a sink built in code may
  // still lack it.
  if (sink.archive === undefined)
    throw new CrmMappingConfigError(`onLeave: archive: ${sink.kind} destinations cannot archive records`, {
      kind: sink.kind,
    });
  if (keys.length === 0) return { acted: [], refused: 0 };
  const target: ObjectTarget = { object: input.target.object, matchField: input.target.matchField, fields: [] };
  const result = await sink.archive(target, keys, input.signal ? { signal: input.signal } : {});
  const acted = [...result.archived, ...result.missing];
  await forgetOwnChanges(hashes, input.target, acted);
  return { acted, refused: result.refused.length, ...(result.reason === undefined ? {} : { reason: result.reason }) };
}
