/**
 * The dashboard's own, deliberately simple token forecast: the recent runs' tokens per day, carried on to the reset.
 * Kept small and local to the page (a forecast module elsewhere may replace it); it never reserves or reads budget.
 */

export interface SpendProjection {
  /** Tokens per day over the window the runs cover. */
  perDay: number;
  /** Tokens the same pace spends from now to the reset. */
  untilReset: number;
  /** Tokens left at the reset at that pace (negative: the allotment runs out first). */
  leftAtReset: number;
  /** When the allotment runs out at that pace, if before the reset (epoch ms). */
  exhaustedAt?: number;
}

const DAY_MS = 86_400_000;

/**
 * `runs`: finished runs of every search (any order), each with when it finished and its tokens. The window is the
 * last `windowDays` (at least one day, so a single busy hour is not read as a daily pace). Undefined without runs.
 */
export function projectTokenSpend(
  runs: readonly { finishedAt: string; tokensSpent: number }[],
  balance: { remaining: number; resetAt: number },
  now: number,
  windowDays = 7,
): SpendProjection | undefined {
  const since = now - windowDays * DAY_MS;
  const recent = runs.filter((r) => Date.parse(r.finishedAt) >= since && Date.parse(r.finishedAt) <= now);
  if (recent.length === 0) return undefined;
  const oldest = Math.min(...recent.map((r) => Date.parse(r.finishedAt)));
  const spanDays = Math.max(1, (now - oldest) / DAY_MS);
  const perDay = recent.reduce((n, r) => n + (Number.isFinite(r.tokensSpent) ? r.tokensSpent : 0), 0) / spanDays;
  const daysLeft = Math.max(0, (balance.resetAt - now) / DAY_MS);
  const untilReset = perDay * daysLeft;
  const leftAtReset = balance.remaining - untilReset;
  const exhaustedAt = leftAtReset < 0 && perDay > 0 ? now + (balance.remaining / perDay) * DAY_MS : undefined;
  return { perDay, untilReset, leftAtReset, ...(exhaustedAt === undefined ? {} : { exhaustedAt }) };
}
