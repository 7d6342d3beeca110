/**
 * Rejects grouped by what went wrong: the CRM's (or the mapping's) code and the field it names, with how many and
 * one example reason. 734 records refused for one mapped property are one line, not 734. Failed links are their own
 * group (code `link_failed`).
 */

/** One refusal: a reject (or failed link) as stored or as a write reported it. Reasons are already redacted. */
export interface Refused {
  code: string;
  field?: string;
  reason: string;
}

export interface RejectGroup {
  code: string;
  /** The field the CRM named; absent when it named none. */
  field?: string;
  count: number;
  /** One reason of the group (the first seen), redacted like every stored reason. */
  example: string;
}

const keyOf = (r: { code: string; field?: string }): string => `${r.code}\u0000${r.field ?? ''}`;

/**
 * `groups` with `refused` added: a new array, largest group first (ties: first seen first). At most `maxGroups`
 * groups: refusals of a group beyond that are not listed (callers keep the total count themselves).
 */
export function addToGroups(
  groups: readonly RejectGroup[],
  refused: Iterable<Refused>,
  maxGroups = Number.POSITIVE_INFINITY,
): RejectGroup[] {
  const byKey = new Map(groups.map((g) => [keyOf(g), { ...g }]));
  for (const r of refused) {
    const key = keyOf(r);
    const group = byKey.get(key);
    if (group) group.count += 1;
    else if (byKey.size < maxGroups)
      byKey.set(key, {
        code: r.code,
        ...(r.field === undefined ? {} : { field: r.field }),
        count: 1,
        example: r.reason,
      });
  }
  // Array.prototype.sort is stable: equal counts keep the order they were first seen in.
  return [...byKey.values()].sort((a, b) => b.count - a.count);
}

export function groupRejects(refused: Iterable<Refused>, maxGroups?: number): RejectGroup[] {
  return addToGroups([], refused, maxGroups);
}

/** `CODE [field]`, or `CODE` when no field was named. */
export function groupLabel(group: { code: string; field?: string }): string {
  return group.field === undefined ? group.code : `${group.code} [${group.field}]`;
}
