/**
 * Erasure (`forget`): BullMQ's keys of the sync queue (job data, results: a run's summary with its warnings, failure
 * reasons, the events stream) naming the person: job texts keep their shape with the names erased; events that name
 * them are dropped.
 */
import type { Redis } from 'ioredis';
import { eraseMentions, type KeyHit } from '../shared/key-erase.js';
import { SYNC_QUEUE } from './job-data.js';

export function forgetInJobs(
  redis: Redis,
  prefix: string,
  texts: readonly string[],
  apply: boolean,
): Promise<KeyHit[]> {
  return eraseMentions(redis, `${prefix}:${SYNC_QUEUE}:*`, texts, 'redact', apply);
}
