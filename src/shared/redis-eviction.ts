/**
 * Redis must never evict our keys: run locks, checkpoints, BullMQ job keys and change hashes that vanish end runs
 * that nothing resumes. The policy is read with CONFIG GET, or from `INFO memory` where a managed Redis forbids
 * CONFIG, before a process starts its roles (and by `validate --online`).
 */
import type { Redis } from 'ioredis';
import { AppError } from './app-error.js';

export const REQUIRED_POLICY = 'noeviction';

/** Redis evicts keys under memory pressure: the process refuses to start. */
export class RedisEvictionPolicyError extends AppError {
  constructor(policy: string) {
    super(
      'redis_eviction_policy',
      `Redis evicts keys (maxmemory-policy ${policy}): set maxmemory-policy ${REQUIRED_POLICY} ` +
        `(redis.conf, CONFIG SET maxmemory-policy ${REQUIRED_POLICY}, or the managed service's parameter group)`,
      { details: { policy } },
    );
  }
}

/** The policy in force, or null when neither CONFIG nor INFO tells it. */
export async function evictionPolicy(redis: Redis): Promise<string | null> {
  try {
    const reply = (await redis.call('CONFIG', 'GET', 'maxmemory-policy')) as string[];
    if (typeof reply[1] === 'string') return reply[1];
  } catch {
    // CONFIG is renamed or refused on managed Redis: INFO tells the same.
  }
  const info = await redis.info('memory');
  return /^maxmemory_policy:(\S+)/m.exec(info)?.[1] ?? null;
}

/** Throws RedisEvictionPolicyError unless Redis is known not to evict. An unknown policy is let through. */
export async function assertNoEviction(redis: Redis): Promise<void> {
  const policy = await evictionPolicy(redis);
  if (policy !== null && policy !== REQUIRED_POLICY) throw new RedisEvictionPolicyError(policy);
}
