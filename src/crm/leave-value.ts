/**
 * The values `onLeave: setFields` writes (docs/runs.md, Mirror): fixed by the config, or `$now`, the time the
 * leavers are acted on. What kind of value each is, for the preflight's type check, and what is sent.
 */
import type { CrmValue } from './crm-record.js';
import { constantKind, type ValueKind } from './value-kind.js';

/** A setFields value that stands for the time the leavers are acted on (ISO 8601). */
export const NOW_VALUE = '$now';

/** `$now` is the time of the run (a date, date-time or text field takes it); null clears any field. */
export function leaveValueKind(value: CrmValue): ValueKind {
  if (value === NOW_VALUE) return 'now';
  return value === null ? 'any' : constantKind(value);
}

/** How a preflight problem names the value: `onLeave value "$now"`. */
export function describeLeaveValue(value: CrmValue): string {
  return `onLeave value ${JSON.stringify(value)}${value === NOW_VALUE ? ' (a date-time)' : ''}`;
}

/**
 * What is sent for a setFields value: `$now` is the instant, or its UTC day (YYYY-MM-DD, midnight UTC) where the
 * field holds days (a HubSpot or Salesforce `date`: HubSpot refuses a time of day there).
 */
export function leaveValueAt(value: CrmValue, now: Date, holdsDays: boolean): CrmValue {
  if (value !== NOW_VALUE) return value;
  const instant = now.toISOString();
  return holdsDays ? instant.slice(0, 10) : instant;
}
