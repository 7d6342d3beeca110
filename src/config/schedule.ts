/** Schedule values of a saved search: `every` intervals, cron patterns, time zones. */
// The same parser (and version) BullMQ evaluates patterns with, so a pattern that passes here is one BullMQ runs.
import { CronExpressionParser } from 'cron-parser';
import type { SavedSearch } from './schema.js';

const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `every` as written in the config: milliseconds (number or digits) or `<n>ms|s|m|h|d` (`30m`, `1h`, `1d`). */
export function parseEvery(value: string | number): number | undefined {
  if (typeof value === 'number') return Number.isInteger(value) && value > 0 ? value : undefined;
  const match = /^(\d+)\s*(ms|s|m|h|d)?$/.exec(value.trim());
  if (!match) return undefined;
  const ms = Number(match[1]) * (UNIT_MS[match[2] ?? 'ms'] ?? 1);
  return ms > 0 ? ms : undefined;
}

export function isValidTimezone(timezone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: timezone });
    return true;
  } catch {
    return false;
  }
}

/** Why a cron pattern is invalid, or undefined when it is valid. 5 fields, or 6 with seconds first. */
export function cronProblem(pattern: string): string | undefined {
  const fields = pattern.trim().split(/\s+/);
  if (fields.length !== 5 && fields.length !== 6) return `expected 5 or 6 cron fields, got ${fields.length}`;
  try {
    CronExpressionParser.parse(pattern);
    return undefined;
  } catch (error) {
    return `invalid cron pattern: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/** A schedule's time zone: a cron schedule's `timezone`, else none (`every` and no schedule run in UTC). */
export function scheduleTimeZone(schedule: SavedSearch['schedule']): string | undefined {
  return schedule && 'timezone' in schedule ? schedule.timezone : undefined;
}

/** The zone the config's times are shown in beside UTC: the one time zone its schedules name, else none. */
export function configTimeZone(searches: readonly Pick<SavedSearch, 'schedule'>[]): string | undefined {
  const zones = new Set(searches.map((s) => scheduleTimeZone(s.schedule)).filter((zone) => zone !== undefined));
  return zones.size === 1 ? [...zones][0] : undefined;
}

/** The zone a search's times are shown in beside UTC: its schedule's, else the config's. */
export function searchTimeZone(
  searches: readonly Pick<SavedSearch, 'name' | 'schedule'>[],
  name: string,
): string | undefined {
  return scheduleTimeZone(searches.find((s) => s.name === name)?.schedule) ?? configTimeZone(searches);
}
