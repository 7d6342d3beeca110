/**
 * The values `onLeave: setFields` writes (docs/runs.md, Mirror): fixed by the config, or `$now`, the time the
 * leavers are acted on. What kind of value each is, for the preflight's type check.
 */
import type { CrmValue } from './crm-record.js';
import { constantKind, type ValueKind } from './value-kind.js';

/** A setFields value that stands for the time the leavers are acted on (ISO 8601). */
export const NOW_VALUE = '$now';

/** `$now` is a date-time (a date, date-time or text field takes it); null clears any field. */
export function leaveValueKind(value: CrmValue): ValueKind {
  if (value === NOW_VALUE) return 'date';
  return value === null ? 'any' : constantKind(value);
}

/** How a preflight problem names the value: `onLeave value "$now"`. */
export function describeLeaveValue(value: CrmValue): string {
  return `onLeave value ${JSON.stringify(value)}${value === NOW_VALUE ? ' (a date-time)' : ''}`;
}
