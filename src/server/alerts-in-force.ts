/**
 * The alerts firing now, as the alert evaluators recorded them (read only: the dashboard never changes alert state).
 */
import type { Redis } from 'ioredis';
import { alertStateKey } from '../alerts/alert-state.js';

export interface AlertInForce {
  /** The rule (`run_failed`, `tokens_low`, ...). */
  rule: string;
  /** What it is about: a search name or a budget account. */
  subject: string;
}

/** Ids are `<rule>:<subject>`; a value is `firing`, or `firing|<claim>` while its message is not delivered yet. */
export async function alertsInForce(redis: Redis, prefix: string): Promise<AlertInForce[]> {
  const states = await redis.hgetall(alertStateKey(prefix));
  return Object.entries(states)
    .filter(([, value]) => value.split('|')[0] === 'firing')
    .map(([id]) => {
      const at = id.indexOf(':');
      return at < 0 ? { rule: id, subject: '' } : { rule: id.slice(0, at), subject: id.slice(at + 1) };
    })
    .sort((a, b) => a.rule.localeCompare(b.rule) || a.subject.localeCompare(b.subject));
}
