/** Times for people: UTC (`2026-11-28 05:00:00Z`), or in the config's time zone beside UTC. */

/** `2026-11-28 06:00 Europe/Berlin (05:00Z)`: a time in the config's time zone beside UTC; `when` without one. */
export function whenIn(at: number | undefined, timeZone: string | undefined): string {
  if (at === undefined || timeZone === undefined) return when(at);
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    })
      .formatToParts(new Date(at))
      .map((p) => [p.type, p.value]),
  );
  const utc = new Date(at).toISOString().slice(11, 16);
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute} ${timeZone} (${utc}Z)`;
}

export function when(iso: string | number | undefined): string {
  if (iso === undefined) return '';
  const d = new Date(iso);
  return Number.isNaN(d.getTime())
    ? ''
    : d
        .toISOString()
        .replace('T', ' ')
        .replace(/\.\d+Z$/, 'Z');
}
