/**
 * `onLeave: {setFields: ...}`: the fields written on a search's confirmed leavers (docs/runs.md, Mirror). Through the
 * sink's normal upsert by match key with only those fields: no record is read, no search token spent. The
 * leavers' change fingerprints are forgotten (their flags stay), so a record that re-enters is written in full by its
 * next run (carrying, say, a mapped constant `si_in_search: {value: true}` again) instead of being skipped as
 * unchanged.
 */
import { forgetOwnChanges, type SearchChangeState } from './change-detector.js';
import { chunks } from './chunks.js';
import type { CrmSink, CrmValue, ObjectTarget } from './crm-sink.js';
import { leaveValueAt, NOW_VALUE } from './leave-value.js';

/** What happens to a search's confirmed leavers (the config's `onLeave`). */
export type OnLeave = 'nothing' | 'removeFromList' | 'archive' | { setFields: Record<string, CrmValue> };

export interface LeaveFieldsInput {
  sink: CrmSink;
  /** The search's target: its object and match field (its mapped fields and link are not written here). */
  target: ObjectTarget;
  keys: readonly string[];
  setFields: Record<string, CrmValue>;
  /** Where the search's change state is. */
  hashes: SearchChangeState;
  now?: Date;
  signal?: AbortSignal;
}

/**
 * Writes the fields on every leaver; returns the keys the CRM took, how many it refused (those stay pending) and the
 * first refusal's reason (redacted by the sink, as reject reasons are).
 */
export async function applyLeaveFields(
  input: LeaveFieldsInput,
): Promise<{ acted: string[]; refused: number; reason?: string }> {
  const { sink, keys, hashes } = input;
  const now = input.now ?? new Date();
  const callOptions = input.signal ? { signal: input.signal } : {};
  const stamped = Object.keys(input.setFields).filter((field) => input.setFields[field] === NOW_VALUE);
  const days =
    stamped.length > 0 && sink.dayFields !== undefined
      ? await sink.dayFields(input.target.object, stamped, callOptions)
      : new Set<string>();
  const properties = Object.fromEntries(
    Object.entries(input.setFields).map(([field, value]) => [field, leaveValueAt(value, now, days.has(field))]),
  );
  const target: ObjectTarget = {
    object: input.target.object,
    matchField: input.target.matchField,
    fields: Object.keys(properties),
  };
  const acted: string[] = [];
  let refused = 0;
  let reason: string | undefined;
  for (const part of chunks(keys, sink.preferredBatchSize(keys.length))) {
    const outcomes = await sink.upsert(
      target,
      part.map((key) => ({ key, properties })),
      callOptions,
    );
    for (const o of outcomes) {
      if (o.status === 'rejected') {
        refused += 1;
        reason ??= `${o.code}${o.field === undefined ? '' : ` [${o.field}]`}: ${o.reason}`;
      } else acted.push(o.key);
    }
  }
  await forgetOwnChanges(hashes, input.target, acted);
  return { acted, refused, ...(reason === undefined ? {} : { reason }) };
}
