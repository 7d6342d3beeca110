/**
 * Per-rule state in Redis, so several processes evaluating the same history send each change once: the swap is one
 * Lua call, and only the caller that saw the old state differ gets the transition.
 */
import type { Redis } from 'ioredis';

// KEYS: state hash. ARGV: id, new state. Returns the old state ('' when none).
const SWAP = `
local old = redis.call('HGET', KEYS[1], ARGV[1]) or ''
if old ~= ARGV[2] then redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) end
return old
`;

export type Transition = 'fired' | 'resolved';

export function alertStateKey(prefix: string): string {
  return `${prefix}:alerts:state`;
}

/**
 * Records the condition's state; returns 'fired' on ok/unknown -> firing, 'resolved' on firing -> ok, else null
 * (a first evaluation that is fine sends nothing).
 */
export async function swapAlertState(redis: Redis, prefix: string, id: string, firing: boolean): Promise<Transition | null> {
  const next = firing ? 'firing' : 'ok';
  const old = (await redis.eval(SWAP, 1, alertStateKey(prefix), id, next)) as string;
  if (old === next) return null;
  if (firing) return 'fired';
  return old === 'firing' ? 'resolved' : null;
}
