/**
 * A schedule's run times in a window, counted and indexed without enumerating them: `every` by division, cron day by
 * day (the day's times are the product of its hour, minute and second values, so a day costs the same at `*\/15` as
 * at `0 2`). Only a day whose UTC offset changes (a DST transition) is walked tick by tick with cron-parser, for its
 * exact rules on skipped and repeated hours; that day's times are kept for the next call.
 */
import { CronExpressionParser, type CronExpression } from 'cron-parser';
import { parseEvery, type SavedSearch } from '../config/index.js';

const DAY_MS = 86_400_000;
/** Entries kept per cache before it is emptied (the caches hold days and DST days, not ticks). */
const CACHE_ENTRIES = 20_000;

/** The run times of a schedule in (`from`, `until`), in time order. */
export interface ScheduleTicks {
  /** How many. */
  readonly total: number;
  /** How many are before `t` (ms). */
  before(t: number): number;
  /** The time of the `k`-th (0-based; undefined past the last). */
  at(k: number): number | undefined;
}

const NONE: ScheduleTicks = { total: 0, before: () => 0, at: () => undefined };

export function scheduleTicks(schedule: SavedSearch['schedule'], from: number, until: number): ScheduleTicks {
  if (!schedule || until <= from) return NONE;
  if ('every' in schedule) {
    const every = parseEvery(schedule.every);
    return every === undefined ? NONE : everyTicks(every, from, until);
  }
  return cronTicks(schedule.cron, schedule.timezone, from, until);
}

/** Multiples of `every` since the epoch, as BullMQ's job schedulers place them. */
function everyTicks(every: number, from: number, until: number): ScheduleTicks {
  const first = Math.floor(from / every) + 1;
  const upTo = (t: number): number => Math.max(0, Math.ceil(t / every) - first);
  const total = upTo(until);
  return { total, before: (t) => Math.min(total, upTo(t)), at: (k) => (k < total ? (first + k) * every : undefined) };
}

function cached<V>(cache: Map<string, V>, key: string, make: () => V): V {
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  if (cache.size >= CACHE_ENTRIES) cache.clear();
  const value = make();
  cache.set(key, value);
  return value;
}

const formatters = new Map<string, Intl.DateTimeFormat>();
const dayStarts = new Map<string, number>();
const dayMatches = new Map<string, boolean>();
const dstDays = new Map<string, number[]>();
const walls = new Map<string, number>();
const dayTables = new Map<string, Day[]>();

/** The zone's wall clock at `t` read as if it were UTC (ms). */
function wallClock(tz: string, t: number): number {
  const f = cached(
    formatters,
    tz,
    () =>
      new Intl.DateTimeFormat('en-US', {
        timeZone: tz,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
      }),
  );
  const p: Record<string, number> = {};
  for (const part of f.formatToParts(t)) if (part.type !== 'literal') p[part.type] = Number(part.value);
  return Date.UTC(p.year ?? 1970, (p.month ?? 1) - 1, p.day ?? 1, p.hour ?? 0, p.minute ?? 0, p.second ?? 0);
}

/** The instant the calendar day starting at `wallDay` (its midnight read as UTC) starts in the zone. */
function dayStart(tz: string, wallDay: number): number {
  return cached(dayStarts, `${tz}|${wallDay}`, () => {
    const guess = wallDay - (wallClock(tz, wallDay) - wallDay);
    return wallDay - (wallClock(tz, guess) - guess);
  });
}

/** Sorted distinct values below `v`. */
function countBelow(values: readonly number[], v: number): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((values[mid] as number) < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

interface Day {
  start: number;
  /** Ticks of the day before it (in the whole days from the window's first). */
  prefix: number;
  count: number;
  /** A DST day's ticks, else undefined (the day's ticks are `start` + the times of day). */
  ticks?: number[];
}

/** A cron pattern as the day-by-day count needs it: its times of day, and its day fields. */
interface CronPattern {
  hours: number[];
  minutes: number[];
  seconds: number[];
  dayPart: string;
  /** The day fields alone, UTC; undefined when every day matches. */
  dayExpr: CronExpression | undefined;
}

const patterns = new Map<string, CronPattern>();

/** Parsed once per pattern and zone: parsing costs more than counting a month of its days. */
function cronPattern(cron: string, tz: string): CronPattern {
  return cached(patterns, `${cron}|${tz}`, () => {
    const { fields } = CronExpressionParser.parse(cron, { tz });
    const sorted = (v: readonly number[]): number[] => [...new Set(v)].sort((a, b) => a - b);
    // The day fields through cron-parser itself (L, #, the OR of day of month and day of week), once per day.
    const dayPart = cron.trim().split(/\s+/).slice(-3).join(' ');
    return {
      hours: sorted(fields.hour.values),
      minutes: sorted(fields.minute.values),
      seconds: sorted(fields.second.values),
      dayPart,
      dayExpr: dayPart === '* * *' ? undefined : CronExpressionParser.parse(`0 0 0 ${dayPart}`, { tz: 'UTC' }),
    };
  });
}

function cronTicks(cron: string, timezone: string | undefined, from: number, until: number): ScheduleTicks {
  const tz = timezone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
  const { hours, minutes, seconds, dayPart, dayExpr } = cronPattern(cron, tz);
  const perHour = minutes.length * seconds.length;
  const perDay = hours.length * perHour;
  const matches = (wallDay: number): boolean =>
    !dayExpr || cached(dayMatches, `${dayPart}|${wallDay}`, () => dayExpr.includesDate(new Date(wallDay)));

  /** Ticks of an ordinary day before `ms` after its start. */
  const belowInDay = (ms: number): number => {
    if (ms <= 0) return 0;
    const s = Math.ceil(ms / 1000);
    if (s >= 86_400) return perDay;
    const [h, m, sec] = [Math.floor(s / 3600), Math.floor((s % 3600) / 60), s % 60];
    let n = countBelow(hours, h) * perHour;
    if (countBelow(hours, h + 1) > countBelow(hours, h)) {
      n += countBelow(minutes, m) * seconds.length;
      if (countBelow(minutes, m + 1) > countBelow(minutes, m)) n += countBelow(seconds, sec);
    }
    return n;
  };
  const dstTicks = (start: number, end: number): number[] =>
    cached(dstDays, `${cron}|${tz}|${start}`, () => {
      const it = CronExpressionParser.parse(cron, { tz, currentDate: new Date(start - 1) });
      const out: number[] = [];
      for (let t = it.next().getTime(); t < end; t = it.next().getTime()) out.push(t);
      return out;
    });

  // The day table depends on the window's days only: kept for the next forecast over the same days.
  const firstDay = Math.floor(cached(walls, `${tz}|${from}`, () => wallClock(tz, from)) / DAY_MS) * DAY_MS;
  const days = cached(dayTables, `${cron}|${tz}|${firstDay}|${until}`, () => {
    const table: Day[] = [];
    let prefix = 0;
    for (let wallDay = firstDay; ; wallDay += DAY_MS) {
      const start = dayStart(tz, wallDay);
      if (start >= until) break;
      const end = dayStart(tz, wallDay + DAY_MS);
      let day: Day;
      if (!matches(wallDay)) day = { start, prefix, count: 0 };
      else if (end - start === DAY_MS) day = { start, prefix, count: perDay };
      else {
        const ticks = dstTicks(start, end);
        day = { start, prefix, count: ticks.length, ticks };
      }
      table.push(day);
      prefix += day.count;
    }
    return table;
  });

  /** Ticks from the first day's start to before `t`. */
  const raw = (t: number): number => {
    let lo = 0;
    let hi = days.length - 1;
    if (hi < 0 || t <= (days[0] as Day).start) return 0;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((days[mid] as Day).start < t) lo = mid;
      else hi = mid - 1;
    }
    const day = days[lo] as Day;
    if (day.count === 0) return day.prefix;
    return day.prefix + (day.ticks ? countBelow(day.ticks, t) : belowInDay(t - day.start));
  };
  const skipped = raw(from + 1);
  const total = raw(until) - skipped;
  const at = (k: number): number | undefined => {
    if (k < 0 || k >= total) return undefined;
    const n = k + skipped;
    let lo = 0;
    let hi = days.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((days[mid] as Day).prefix <= n) lo = mid;
      else hi = mid - 1;
    }
    const day = days[lo] as Day;
    const i = n - day.prefix;
    if (day.ticks) return day.ticks[i];
    const h = hours[Math.floor(i / perHour)] as number;
    const m = minutes[Math.floor((i % perHour) / seconds.length)] as number;
    const s = seconds[i % seconds.length] as number;
    return day.start + ((h * 60 + m) * 60 + s) * 1000;
  };
  return { total, before: (t) => Math.max(0, Math.min(total, raw(t) - skipped)), at };
}
