import type { Redis } from 'ioredis';
import type { AppConfig } from '../../src/config/index.js';
import { createSourceClient, type SourceClient } from '../../src/source/index.js';
import type { Logger } from '../../src/shared/logger.js';
import { maxJourneys } from './pacing/plan-journeys.js';

/** One source client per run: its stats (requests, 429s) are then the run's own; shared state lives in Redis. */
export function openSource(config: AppConfig, redis: Redis, prefix: string, logger: Logger): SourceClient {
  const { source } = config;
  return createSourceClient({
    baseUrl: source.baseUrl,
    auth: source.auth,
    paths: source.paths,
    redis,
    keyPrefix: prefix,
    fallbackLimits: source.fallbackLimits,
    tokens: source.tokens,
    credits: source.credits,
    reveal: { refreshAfterDays: config.reveal.refreshAfterDays, logDays: config.reveal.logDays },
    requestTimeoutMs: source.requestTimeoutMs,
    logger,
    // One connection per journey in flight, plus a few for counts while partitions are split.
    connections: maxJourneys(config) + 8,
  });
}
