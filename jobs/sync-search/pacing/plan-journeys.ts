/**
 * How many journeys a run may walk (`source.parallelism`, or the `auto` bound) and starts with, before any page:
 * the count's latency stands in for the page latency.
 */
import type { AppConfig } from '../../../src/config/index.js';
import type { SourceClient } from '../../../src/source/index.js';
import { sizeJourneys } from './size-journeys.js';

/** `source.parallelism: auto`: the bound is then only a safety net (the sizing rule decides). */
export const AUTO_MAX_JOURNEYS = 256;
/** Page latency assumed before any answer was timed. */
export const DEFAULT_LATENCY_MS = 250;

export function maxJourneys(config: AppConfig): number {
  const p = config.source.parallelism;
  return p === 'auto' ? AUTO_MAX_JOURNEYS : p;
}

/** The search limit per window: learned from headers, else the count's (same package), else the fallback. */
export async function searchRate(
  source: SourceClient,
  config: AppConfig,
): Promise<{ limit: number; windowMs: number }> {
  const learned = (await source.rateLimit('search')) ?? (await source.rateLimit('count'));
  if (learned) return learned;
  const f = config.source.fallbackLimits;
  return { limit: f.search, windowMs: f.windowSeconds * 1000 };
}

/**
 * Journeys a run starts with: before any page, the count's latency stands in for the page latency; a destination's
 * known ceiling (records per second) bounds the figure as it bounds the walk's (`sizeJourneys`).
 */
export async function planJourneys(
  source: SourceClient,
  config: AppConfig,
  countMs: number | null,
  crmRecordsPerSecond: number | null,
): Promise<number> {
  const { limit, windowMs } = await searchRate(source, config);
  return sizeJourneys({
    limit,
    windowMs,
    activeRuns: 1,
    fetchMs: countMs ?? DEFAULT_LATENCY_MS,
    writeMs: 0,
    max: maxJourneys(config),
    ceilingPagesPerSecond: crmRecordsPerSecond === null ? null : crmRecordsPerSecond / config.source.pageSize,
  });
}
