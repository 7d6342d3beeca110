import type { SourceClient } from '../../src/source/index.js';
import type { RunCounts, RunSummary } from '../../src/runs/run-summary.js';

/**
 * The money story of a run for its summary: persons whose contacts were paid for, persons passed by because they
 * were revealed before, tokens per record landed, and whether a journey fell back to revealing whole pages.
 * Figures of this attempt's client (a resumed run reports its last attempt's reveals). A dry run reveals nothing:
 * it reports what a real run would reveal of the persons it walked (`revealForecast`).
 */
export function revealSummary(
  source: SourceClient,
  counts: RunCounts,
  sampled = false,
): Pick<
  RunSummary,
  'personsRevealed' | 'revealSkipped' | 'tokensSpentPerRecord' | 'revealFallback' | 'revealForecast' | 'suppressed'
> {
  const stats = source.stats();
  const landed = counts.created + counts.updated + counts.unchanged;
  const forecast = stats.revealForecast + stats.revealForecastSkipped;
  return {
    ...(forecast > 0
      ? {
          revealForecast: {
            credits: stats.revealForecast,
            revealSkipped: stats.revealForecastSkipped,
            from: sampled ? ('sample' as const) : ('reveal-store' as const),
          },
        }
      : {}),
    ...(stats.personsRevealed > 0 || stats.revealSkipped > 0
      ? { personsRevealed: stats.personsRevealed, revealSkipped: stats.revealSkipped }
      : {}),
    ...(landed > 0 ? { tokensSpentPerRecord: Math.round((counts.tokensSpent / landed) * 1000) / 1000 } : {}),
    ...(stats.revealFallbacks > 0 ? { revealFallback: true } : {}),
    ...(stats.suppressed > 0 ? { suppressed: stats.suppressed } : {}),
  };
}
