/**
 * Per-rule state in Redis, so several processes evaluating the same history send each change once, and a change is
 * announced until a webhook took it (at least once): the swap and the settle are one Lua call each, and only the
 * evaluator holding a state's claim delivers it.
 */
import { readFileSync } from 'node:fs';
import type { Redis } from 'ioredis';

const SWAP_LUA = readFileSync(new URL('./alert-state-swap.lua', import.meta.url), 'utf8');
const SETTLE_LUA = readFileSync(new URL('./alert-state-settle.lua', import.meta.url), 'utf8');

interface AlertStateCommands {
  alertStateSwap(key: string, id: string, next: string, nowMs: number, leaseMs: number): Promise<string[]>;
  alertStateSettle(key: string, id: string, claimed: string, value: string): Promise<number>;
}

/** The scripts, defined once per connection (ioredis sends EVALSHA, and the script body only when Redis lacks it). */
function commands(redis: Redis): AlertStateCommands {
  if (!('alertStateSwap' in redis)) {
    redis.defineCommand('alertStateSwap', { numberOfKeys: 1, lua: SWAP_LUA });
    redis.defineCommand('alertStateSettle', { numberOfKeys: 1, lua: SETTLE_LUA });
  }
  return redis as unknown as AlertStateCommands;
}

export type Transition = 'fired' | 'resolved';

/** A change the caller claimed and must deliver, then settle with `delivered` or `retryLater`. */
export interface ClaimedTransition {
  transition: Transition;
  delivered(): Promise<void>;
  /** Frees the claim so the next evaluation (of any process) tries again. */
  retryLater(): Promise<void>;
}

export function alertStateKey(prefix: string): string {
  return `${prefix}:alerts:state`;
}

/**
 * Records the condition's state. Returns a claimed transition when a message is due: 'fired' on ok/unknown ->
 * firing, 'resolved' on firing -> ok, or the same again while an earlier one was not delivered and no other
 * evaluator holds it (a claim lasts `leaseMs`, longer than one delivery may take). Else null: a first evaluation
 * that is fine sends nothing.
 */
export async function swapAlertState(
  redis: Redis,
  prefix: string,
  id: string,
  firing: boolean,
  leaseMs: number,
): Promise<ClaimedTransition | null> {
  const key = alertStateKey(prefix);
  const next = firing ? 'firing' : 'ok';
  const cmd = commands(redis);
  const [state, claimed] = await cmd.alertStateSwap(key, id, next, Date.now(), leaseMs);
  if (state === undefined || claimed === undefined) return null;
  return {
    transition: state === 'firing' ? 'fired' : 'resolved',
    delivered: async () => void (await cmd.alertStateSettle(key, id, claimed, next)),
    retryLater: async () => void (await cmd.alertStateSettle(key, id, claimed, `${next}|0`)),
  };
}
