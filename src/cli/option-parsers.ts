/**
 * Typed option values for commander: a value that does not parse is refused with a message naming the option
 * (commander prefixes `option '--limit <n>' argument 'abc' is invalid.`), never turned into NaN or a silent default.
 */
import { InvalidArgumentError } from 'commander';

/** A whole number in [min, max] (decimal digits only: no `1e3`, `0x10`, `12abc` or blanks); `what` names it. */
export function integerIn(min: number, max: number, what = 'value'): (value: string) => number {
  return (value) => {
    const n = /^-?\d+$/.test(value.trim()) ? Number(value) : Number.NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max) {
      const range = max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `from ${min} to ${max}`;
      throw new InvalidArgumentError(`invalid ${what}: expected a whole number ${range}`);
    }
    return n;
  };
}

/** At least 1: counts such as --limit and --concurrency. */
export const positiveInteger = integerIn(1, Number.MAX_SAFE_INTEGER, 'count');

/** A TCP port; 0 picks a free one. */
export const tcpPort = integerIn(0, 65_535, 'port');

/** A UTC day (`2026-11-28`) or an ISO instant (`2026-11-28T09:00:00Z`): its milliseconds since the epoch. */
export function instant(value: string): number {
  const text = value.trim();
  const ms = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$/.test(text)
    ? Date.parse(/T/.test(text) ? text : `${text}T00:00:00Z`)
    : Number.NaN;
  if (!Number.isFinite(ms))
    throw new InvalidArgumentError('invalid date: expected a UTC day (2026-11-28) or an ISO time with its zone');
  return ms;
}
