/** The reveal log of the config's Sales-Intelligence account, under the workers' key prefix. */
import type { Redis } from 'ioredis';
import type { AppConfig } from '../config/index.js';
import { defaultAccountKey, RevealLog } from '../source/index.js';

export function revealLogOf(config: AppConfig, redis: Redis, prefix: string): RevealLog {
  const account = defaultAccountKey(config.source.baseUrl, config.source.auth.clientId);
  return new RevealLog(redis, `${prefix}:source:${account}`, config.reveal.logDays);
}
