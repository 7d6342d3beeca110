/**
 * Which persons of a page a run pays to reveal: the one place that decides (a real run's reveals in reveal-page.ts
 * and a dry run's credit forecast in journey.ts both ask here). A person is revealed when the account has no fresh
 * reveal of it (never revealed, or longer ago than `refreshAfterDays`); one without an id is never revealed alone, and
 * one `suppress:` names before its reveal (src/source/suppression.ts) never.
 */
import type { RevealStore } from './reveal-store.js';

export interface RevealDecision {
  /** Per page position: true when the run reveals (pays for) this person. */
  needs: boolean[];
  /** Reveal day of each person passed by (fresh), for the run's tally. */
  freshDays: number[];
  /** Persons not revealed because they are suppressed. */
  suppressed: number;
}

export async function decideReveals(
  store: RevealStore,
  ids: readonly (string | undefined)[],
  today = store.today(),
  suppressedAt?: (index: number) => boolean,
): Promise<RevealDecision> {
  const known = ids.flatMap((id, i) => (id === undefined ? [] : [{ id, i }]));
  const days = await store.lookup(known.map((x) => x.id));
  const needs = new Array<boolean>(ids.length).fill(false);
  const freshDays: number[] = [];
  let suppressed = 0;
  known.forEach((x, k) => {
    const day = days[k] ?? null;
    if (day !== null && store.isFresh(day, today)) freshDays.push(day);
    else if (suppressedAt?.(x.i) === true) suppressed += 1;
    else needs[x.i] = true;
  });
  return { needs, freshDays, suppressed };
}
