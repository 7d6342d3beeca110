/**
 * Whether a Redis connection is usable, and since when: read by /readyz and /metrics, written only by the
 * connection's own events. One record per connection object (a WeakMap, so closed connections are collected).
 */
import type { Redis } from 'ioredis';

export interface RedisState {
  /** True while the connection is ready for commands. */
  up: boolean;
  /** Epoch ms of the last change of `up` (or of when tracking began). */
  since: number;
  /** Message of the last connection error (no credentials: ioredis messages name host and port only). */
  lastError?: string;
}

const states = new WeakMap<Redis, RedisState>();

/** Starts recording `redis`'s state (idempotent) and returns the live record. */
export function trackRedisState(redis: Redis, now: () => number = Date.now): RedisState {
  const existing = states.get(redis);
  if (existing) return existing;
  const state: RedisState = { up: redis.status === 'ready', since: now() };
  states.set(redis, state);
  const set = (up: boolean): void => {
    if (state.up === up) return;
    state.up = up;
    state.since = now();
  };
  redis.on('ready', () => set(true));
  redis.on('close', () => set(false));
  redis.on('end', () => set(false));
  redis.on('error', (err: Error) => {
    state.lastError = err.message;
    // A failed connect attempt emits 'error' without a 'close' first.
    if (redis.status !== 'ready') set(false);
  });
  return state;
}

/** A snapshot of `redis`'s state; tracking starts on first call (then `up` is just its current status). */
export function redisState(redis: Redis): RedisState {
  return { ...trackRedisState(redis) };
}
